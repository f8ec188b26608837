"""`semisync slave`: build the SlaveConfig from options, environment and file, then run
`node.main.run(config)` (the one server, this preset's defaults) in the foreground."""

from __future__ import annotations

from cli.daemon_options import daemon_command
from config.loader import load_slave_config
from config.slave import SlaveConfig

command = daemon_command("slave", SlaveConfig, load_slave_config, "Run a slave in the foreground.")
