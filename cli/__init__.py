"""The `semisync` console script: the edge where options become configuration objects.

Each subcommand lives in its own module (`cli/<name>_cmd.py`) exposing a click command named
`command`; `cli.main` loads them lazily so that `semisync binlog` does not import the daemons.
This is the only package allowed to import every other one.
"""
