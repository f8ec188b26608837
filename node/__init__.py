"""node: the one server both `semisync master` and `semisync slave` run.

- `main`: `NodeDaemon` (`run(config)`): startup with crash recovery, serve, shutdown.
- `role`: `NodeRole`: the source side (master/role.py) and the replica side (slave/role.py) of
  one server at once, and read_only.
"""
