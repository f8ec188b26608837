"""`master.info`: the slave's connection settings and its starting place in the master's binlog.

Contract
- One text file in the datadir, one `key=value` per line, rewritten whole (write to a temporary
  file, fsync, rename, fsync the directory) so a crash leaves the old or the new version. A
  failed write or fsync (full disk, I/O error) leaves the old version and no temporary file,
  and raises OSError: CHANGE MASTER TO then fails with 1380 (as mysqld: "Failed to flush master
  info file") and changes nothing; a stop logs it and goes on (the relay log holds the position).
- Written by CHANGE MASTER TO, RESET SLAVE and a clean stop; read once at startup. The live
  received position is *not* rewritten per event: after a crash it is recovered from the relay
  log itself (see slave/relay_log.py), which is the only place where it is durable together with
  the events. `log_file`/`log_pos` here are the place to start from when the relay log holds no
  event of the master (first start, after CHANGE MASTER TO MASTER_LOG_FILE=..., after RESET SLAVE).
- `sql_delay` (MASTER_DELAY) is kept here with the connection settings (MariaDB keeps it in
  relay-log.info; both survive a restart). A file written before the option existed: 0.
- `use_gtid` (MASTER_USE_GTID) says how the IO task asks for the binlog; by GTID, the GTIDs to
  start after are not here but in the engine (`@@gtid_slave_pos`) and the relay log.
- Passwords are stored in clear, as MySQL's master.info does; the file is created mode 0600.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path

FILE_NAME = "master.info"


@dataclass(frozen=True, slots=True)
class MasterInfo:
    host: str | None = None
    port: int = 3306
    user: str = "repl"
    password: str = ""
    log_file: str = ""  # empty: from the master's first binlog
    log_pos: int = 4
    heartbeat_period: float = 30.0
    connect_retry: float = 60.0
    ssl: int = 0  # MASTER_SSL: 1 = the connection to the master runs over TLS
    ssl_ca: str = ""  # MASTER_SSL_CA: the CA that signed the master's certificate (checked when set)
    ssl_verify_server_cert: int = 0  # MASTER_SSL_VERIFY_SERVER_CERT: also check the host name
    # MASTER_USE_GTID (SHOW SLAVE STATUS's Using_Gtid): `no` asks for log_file/log_pos; `slave_pos`
    # and `current_pos` ask by GTID (@slave_connect_state). A file written before the option
    # existed has no line for it: `no`, the way it always replicated.
    use_gtid: str = "no"
    # MASTER_DELAY (SHOW SLAVE STATUS's SQL_Delay): seconds the SQL task keeps each event back
    # after the master executed it (slave/applier.py). Kept with the connection settings, so it
    # survives a restart; RESET SLAVE [ALL] sets it back to 0, as MariaDB's.
    sql_delay: int = 0

    @property
    def configured(self) -> bool:
        return bool(self.host)

    def with_changes(self, **changes: object) -> MasterInfo:
        return replace(self, **changes)  # type: ignore[arg-type]


def load(datadir: Path) -> MasterInfo | None:
    path = datadir / FILE_NAME
    if not path.exists():
        return None
    values: dict[str, object] = {}
    kinds = {f.name: f.type for f in fields(MasterInfo)}
    for line in path.read_text(encoding="utf-8").splitlines():
        key, sep, value = line.partition("=")
        if not sep or key not in kinds:
            continue
        kind = kinds[key]
        if "int" in str(kind):
            values[key] = int(value)
        elif "float" in str(kind):
            values[key] = float(value)
        elif key == "host":
            values[key] = value or None
        else:
            values[key] = value
    return MasterInfo(**values)  # type: ignore[arg-type]


def save(datadir: Path, info: MasterInfo) -> None:
    path = datadir / FILE_NAME
    tmp = path.with_suffix(".tmp")
    text = "".join(f"{k}={'' if v is None else v}\n" for k, v in asdict(info).items())
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        data = memoryview(text.encode("utf-8"))
        while data:
            data = data[os.write(fd, data):]
        os.fsync(fd)
    except OSError:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    os.close(fd)
    os.replace(tmp, path)
    dir_fd = os.open(datadir, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def remove(datadir: Path) -> None:
    (datadir / FILE_NAME).unlink(missing_ok=True)
