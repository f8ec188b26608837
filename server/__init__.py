"""server: the MySQL-protocol server shell shared by master and slave (listener, client sessions,
authentication, users and grants, variables, admin statements). The role-specific parts (binlog
and dump sessions on the master; IO task and applier on the slave) plug in through `server.role`."""
