"""`semisync master`: build the MasterConfig from options, environment and file, then run
`node.main.run(config)` (the one server, this preset's defaults) in the foreground."""

from __future__ import annotations

from cli.daemon_options import daemon_command
from config.loader import load_master_config
from config.master import MasterConfig

command = daemon_command(
    "master", MasterConfig, load_master_config, "Run the master in the foreground."
)
