"""`semisync status`: the semi-sync state of a running master or slave, as a table.

It speaks only SQL a DBA could type: SHOW GLOBAL STATUS/VARIABLES, SHOW MASTER STATUS,
information_schema.RPL_SEMI_SYNC_SLAVES (the registered slaves and their acked positions; empty
without the semi-sync master plugin; SHOW SLAVE HOSTS where the table does not exist, as on a
MariaDB) and SHOW SLAVE STATUS. A server with a SHOW SLAVE STATUS row is shown as a
slave, any other as a master. Cannot connect: one line on stderr, exit 1.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import click

from cli.client import Client, ClientError


def _fmt_us(value: Any) -> str:
    try:
        return f"{int(value)} us"
    except (TypeError, ValueError):
        return "-"


def _lag(master_file: str | None, master_pos: Any, acked_file: Any, acked_pos: Any) -> str:
    if not acked_file or acked_pos in (None, ""):
        return "-"
    if acked_file != master_file:
        return f"behind ({acked_file})"
    try:
        return f"{int(master_pos) - int(acked_pos)} bytes"
    except (TypeError, ValueError):
        return "-"


def master_report(client: Client) -> list[str]:
    status = client.variables("SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master%'")
    variables = client.variables("SHOW GLOBAL VARIABLES LIKE 'rpl_semi_sync_master%'")
    server_id = client.variables("SHOW GLOBAL VARIABLES LIKE 'server_id'").get("server_id", "?")
    masters = client.rows_as_dicts("SHOW MASTER STATUS")
    file = masters[0].get("File") if masters else None
    pos = masters[0].get("Position") if masters else None
    lines = [
        f"master {client.host}:{client.port}  server_id {server_id}  binlog {file or '-'}:{pos or '-'}",
        "semi-sync  enabled {}  status {}  clients {}  wait point {}  wait for {} slave(s)  timeout {} ms".format(
            variables.get("rpl_semi_sync_master_enabled", "(plugin not installed)"),
            status.get("Rpl_semi_sync_master_status", "-"),
            status.get("Rpl_semi_sync_master_clients", "-"),
            variables.get("rpl_semi_sync_master_wait_point", "-"),
            variables.get("rpl_semi_sync_master_wait_for_slave_count", "-"),
            variables.get("rpl_semi_sync_master_timeout", "-"),
        ),
        "transactions  yes_tx {}  no_tx {}  OFF switches {}  avg tx wait {}  avg net wait {}  waiting sessions {}".format(
            status.get("Rpl_semi_sync_master_yes_tx", "-"),
            status.get("Rpl_semi_sync_master_no_tx", "-"),
            status.get("Rpl_semi_sync_master_no_times", "-"),
            _fmt_us(status.get("Rpl_semi_sync_master_tx_avg_wait_time")),
            _fmt_us(status.get("Rpl_semi_sync_master_net_avg_wait_time")),
            status.get("Rpl_semi_sync_master_wait_sessions", "-"),
        ),
    ]
    try:
        hosts = client.rows_as_dicts("SELECT SERVER_ID, HOST, PORT, ACKED_LOG_FILE, ACKED_LOG_POS"
                                     " FROM information_schema.RPL_SEMI_SYNC_SLAVES ORDER BY SERVER_ID")
    except ClientError:  # a server without the table (MariaDB): its slaves, no acked position
        hosts = [{"SERVER_ID": h.get("Server_id"), "HOST": h.get("Host"), "PORT": h.get("Port")}
                 for h in client.rows_as_dicts("SHOW SLAVE HOSTS")]
    lines.append(f"slaves ({len(hosts)})")
    header = f"  {'SERVER_ID':>9}  {'HOST':<15} {'PORT':>5}  {'ACKED POSITION':<28} LAG"
    lines.append(header)
    for h in hosts:
        acked_file, acked_pos = h.get("ACKED_LOG_FILE"), h.get("ACKED_LOG_POS")
        acked = f"{acked_file}:{acked_pos}" if acked_file else "-"
        lines.append(
            f"  {h.get('SERVER_ID', '?'):>9}  {str(h.get('HOST') or '-'):<15} {str(h.get('PORT') or '-'):>5}  "
            f"{acked:<28} {_lag(file, pos, acked_file, acked_pos)}"
        )
    return lines


def slave_report(client: Client, row: dict[str, Any]) -> list[str]:
    status = client.variables("SHOW GLOBAL STATUS")
    server_id = client.variables("SHOW GLOBAL VARIABLES LIKE 'server_id'").get("server_id", "?")
    lines = [
        f"slave {client.host}:{client.port}  server_id {server_id}  master {row.get('Master_Host')}:{row.get('Master_Port')}",
        f"IO running {row.get('Slave_IO_Running')}  SQL running {row.get('Slave_SQL_Running')}  state: {row.get('Slave_IO_State') or '-'}",
        "read {}:{}  executed {}:{}  seconds behind master {}".format(
            row.get("Master_Log_File"),
            row.get("Read_Master_Log_Pos"),
            row.get("Relay_Master_Log_File"),
            row.get("Exec_Master_Log_Pos"),
            row.get("Seconds_Behind_Master") if row.get("Seconds_Behind_Master") is not None else "NULL",
        ),
        "semi-sync status {}  heartbeats {} (period {} s)".format(
            status.get("Rpl_semi_sync_slave_status", "-"),
            status.get("Slave_received_heartbeats", "-"),
            status.get("Slave_heartbeat_period", "-"),
        ),
    ]
    for key in ("Last_IO_Error", "Last_SQL_Error"):
        if row.get(key):
            lines.append(f"{key}: {row[key]}")
    return lines


def report(client: Client) -> list[str]:
    try:
        rows = client.rows_as_dicts("SHOW SLAVE STATUS")
    except ClientError:
        rows = []
    return slave_report(client, rows[0]) if rows else master_report(client)


@click.command("status")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=3306, show_default=True, type=int)
@click.option("--user", default="root", show_default=True)
@click.option("--password", default="", show_default=False, help="password (default: empty)")
@click.option("--watch", is_flag=True, help="refresh every --interval seconds until Ctrl-C")
@click.option("--interval", default=1.0, show_default=True, type=float)
def command(host: str, port: int, user: str, password: str, watch: bool, interval: float) -> None:
    """Show the semi-sync state of a running master or slave."""
    try:
        with Client(host, port, user, password) as client:
            while True:
                lines = report(client)
                if watch:
                    click.echo("\x1b[2J\x1b[H" + time.strftime("%H:%M:%S"), nl=True)
                click.echo("\n".join(lines))
                if not watch:
                    return
                time.sleep(interval)
    except ClientError as exc:
        click.echo(f"semisync status: {exc}", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        return
