"""Configuration of the daemons: frozen pydantic models, built once at the edge (cli/).

`NodeConfig` holds every option of the one server (../shared/INTERFACE.md); `MasterConfig` and
`SlaveConfig` are its two presets (only defaults differ); `load_master_config`
/ `load_slave_config` merge command line > environment > TOML file > default and raise
`ConfigError` (one printable line) for anything they refuse. Imports nothing of ours.
"""

from config.loader import ConfigError, load_master_config, load_slave_config
from config.master import BinlogChecksum, MasterConfig, WaitPoint
from config.node import NodeConfig
from config.slave import SlaveConfig

__all__ = [
    "BinlogChecksum",
    "ConfigError",
    "MasterConfig",
    "NodeConfig",
    "SlaveConfig",
    "WaitPoint",
    "load_master_config",
    "load_slave_config",
]
