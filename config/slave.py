"""SlaveConfig: the `semisync slave` preset of the one server (config/node.py).

It differs from the master preset only in defaults (../shared/INTERFACE.md): datadir
./data/slave, port 3307, `--server-id` required, read_only ON. Every source option is accepted
too (`--log-bin`, `--rpl-semi-sync-master-*`, used once the slave is promoted).
"""

from __future__ import annotations

from pathlib import Path

from config.daemon import DataDir, Port, ServerId
from config.node import Bool, NodeConfig
from config.values import option


class SlaveConfig(NodeConfig):
    """`semisync slave`: NodeConfig with the slave's defaults."""

    datadir: DataDir = option(
        Path("./data/slave"),
        metavar="PATH",
        shown="./data/slave",
        help="binlogs, relay logs, master.info, the applied database, users",
    )
    port: Port = option(3307, metavar="N", help="the slave's own MySQL protocol port (reads, admin)")
    server_id: ServerId = option(
        metavar="N",
        help="this server's id, 1-4294967295; must differ from the master's",
    )
    read_only: Bool = option(
        True,
        metavar="BOOL",
        help="refuse client writes (1290) while ON; the applier is never refused; SET GLOBAL "
        "read_only = OFF (with RESET SLAVE ALL) promotes the slave",
    )
