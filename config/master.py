"""MasterConfig: the `semisync master` preset of the one server (config/node.py).

It is `NodeConfig` itself: datadir ./data/master, port 3306, server_id 1, read_only OFF. Every
replica option is accepted too (`--master-host` makes the master a replica as well).
"""

from __future__ import annotations

from config.node import BinlogChecksum, BinlogErrorAction, NodeConfig, WaitPoint

__all__ = ["BinlogChecksum", "BinlogErrorAction", "MasterConfig", "WaitPoint"]


class MasterConfig(NodeConfig):
    """`semisync master`: the defaults of NodeConfig."""
