"""Configuration of the daemons: frozen pydantic models, built once at the edge (cli/).

`MasterConfig` / `SlaveConfig` hold every option of ../shared/INTERFACE.md; `load_master_config`
/ `load_slave_config` merge command line > environment > TOML file > default and raise
`ConfigError` (one printable line) for anything they refuse. Imports nothing of ours.
"""

from config.loader import ConfigError, load_master_config, load_slave_config
from config.master import BinlogChecksum, MasterConfig, WaitPoint
from config.slave import SlaveConfig

__all__ = [
    "BinlogChecksum",
    "ConfigError",
    "MasterConfig",
    "SlaveConfig",
    "WaitPoint",
    "load_master_config",
    "load_slave_config",
]
