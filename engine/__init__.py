"""engine: MySQL-dialect SQL executed on embedded SQLite (shared by master and slave)."""
