"""MySQL functions SQLite lacks, registered on every engine connection, and MySQL's RAND().

All are deterministic given their arguments, except `mysql_rand()`, which draws from the running
statement's session generator (`RandState`, MySQL's own algorithm, so a binlogged RAND_SEED
reproduces the master's values) through the connection's `ConnectionState`.
"""

from __future__ import annotations

import calendar
import hashlib
import math
import re
import sqlite3
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

MAX_RAND = 0x3FFFFFFF


class RandState:
    """MySQL's RAND() generator (two seeds, as binlogged in a RAND event)."""

    def __init__(self, seed1: int, seed2: int):
        self.seed1 = seed1 % MAX_RAND
        self.seed2 = seed2 % MAX_RAND

    @classmethod
    def from_int(cls, seed: int) -> RandState:
        return cls(seed * 0x10001 + 55555555, seed * 0x10000001)

    def next(self) -> float:
        self.seed1 = (self.seed1 * 3 + self.seed2) % MAX_RAND
        self.seed2 = (self.seed1 + self.seed2 + 33) % MAX_RAND
        return self.seed1 / MAX_RAND


class SessionFunctions:
    """A session's state that functions read and write: RAND()'s generator, and the value a
    LAST_INSERT_ID(expr) call set during the current statement."""

    def __init__(self, rand: RandState):
        self.rand = rand
        self.set_last_id: int | None = None
        self.upserts_changed = 0  # rows an ON DUPLICATE KEY UPDATE changed / left as they were
        self.upserts_unchanged = 0


class ConnectionState:
    """What a connection's functions need of the statement running on it (one thread at a time)."""

    fx: SessionFunctions | None = None


def _to_str(v: Any) -> str:
    if isinstance(v, bytes):
        return v.decode("utf-8", "surrogateescape")
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return repr(v)
    return str(v)


def _to_bytes(v: Any) -> bytes:
    return v if isinstance(v, bytes) else _to_str(v).encode("utf-8", "surrogateescape")


def concat(*args: Any) -> str | bytes | None:
    """MySQL's CONCAT: NULL if any argument is; a binary string if any argument is one (its
    bytes need not be UTF-8, so they are never joined as text)."""
    if any(a is None for a in args):
        return None
    if any(isinstance(a, bytes) for a in args):
        return b"".join(_to_bytes(a) for a in args)
    return "".join(_to_str(a) for a in args)


def concat_ws(sep: Any, *args: Any) -> str | bytes | None:
    if sep is None:
        return None
    parts = [a for a in args if a is not None]
    if isinstance(sep, bytes) or any(isinstance(a, bytes) for a in parts):
        return _to_bytes(sep).join(_to_bytes(a) for a in parts)
    return _to_str(sep).join(_to_str(a) for a in parts)


def _dt(value: Any) -> datetime | None:
    if value is None:
        return None
    text = _to_str(value)
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d"):
        try:
            return datetime.strptime(text, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def unix_timestamp(value: Any = None) -> int | None:
    if value is None:
        return int(time.time())
    dt = _dt(value)
    return int(dt.timestamp()) if dt else None


def from_unixtime(value: Any, fmt: Any = None) -> str | None:
    if value is None:
        return None
    dt = datetime.fromtimestamp(float(value), tz=UTC)
    return date_format(dt.strftime("%Y-%m-%d %H:%M:%S"), fmt) if fmt else dt.strftime("%Y-%m-%d %H:%M:%S")


_FMT = {"%Y": "%Y", "%y": "%y", "%m": "%m", "%d": "%d", "%H": "%H", "%i": "%M", "%s": "%S", "%S": "%S",
        "%M": "%B", "%b": "%b", "%W": "%A", "%a": "%a", "%T": "%H:%M:%S", "%j": "%j", "%p": "%p",
        "%h": "%I", "%I": "%I", "%f": "%f", "%%": "%%"}


def date_format(value: Any, fmt: Any) -> str | None:
    dt = _dt(value)
    if dt is None or fmt is None:
        return None
    py = re.sub(r"%.", lambda m: _FMT.get(m.group(0), m.group(0)[1]), _to_str(fmt))
    out = dt.strftime(py)
    return out


_UNIT_SECONDS = {"MICROSECOND": 1e-6, "SECOND": 1, "MINUTE": 60, "HOUR": 3600, "DAY": 86400, "WEEK": 604800}


def date_add(value: Any, n: Any, unit: str, sign: int) -> str | None:
    """MySQL's date arithmetic: DATE_ADD/DATE_SUB and `d +/- INTERVAL n unit`."""
    dt = _dt(value)
    if dt is None or n is None:
        return None
    amount = float(n) * sign
    date_only = len(_to_str(value).strip()) == 10
    if unit in ("MONTH", "QUARTER", "YEAR"):
        months = int(amount) * {"MONTH": 1, "QUARTER": 3, "YEAR": 12}[unit]
        total = dt.year * 12 + dt.month - 1 + months
        year, month = divmod(total, 12)
        last_day = calendar.monthrange(year, month + 1)[1]
        dt = dt.replace(year=year, month=month + 1, day=min(dt.day, last_day))
    else:
        dt = dt + timedelta(seconds=amount * _UNIT_SECONDS[unit])
        date_only = date_only and unit in ("DAY", "WEEK")
    if date_only:
        return dt.strftime("%Y-%m-%d")
    return dt.strftime("%Y-%m-%d %H:%M:%S.%f" if dt.microsecond else "%Y-%m-%d %H:%M:%S")


def _part(index: int):
    def get(value: Any) -> int | None:
        dt = _dt(value)
        return None if dt is None else dt.timetuple()[index]
    return get


def left(s: Any, n: Any) -> str | None:
    return None if s is None or n is None else _to_str(s)[: max(int(n), 0)]


def right(s: Any, n: Any) -> str | None:
    if s is None or n is None:
        return None
    n = int(n)
    return _to_str(s)[-n:] if n > 0 else ""


def _pad(s: Any, n: Any, pad: Any, on_left: bool) -> str | None:
    if s is None or n is None or pad is None:
        return None
    s, n, pad = _to_str(s), int(n), _to_str(pad)
    if len(s) >= n:
        return s[:n]
    if not pad:
        return None
    fill = (pad * n)[: n - len(s)]
    return fill + s if on_left else s + fill


def _hash(algo: str):
    def digest(value: Any) -> str | None:
        if value is None:
            return None
        data = value if isinstance(value, bytes) else _to_str(value).encode()
        return hashlib.new(algo, data).hexdigest()
    return digest


def sha2(value: Any, bits: Any) -> str | None:
    if value is None or bits is None:
        return None
    algo = {0: "sha256", 224: "sha224", 256: "sha256", 384: "sha384", 512: "sha512"}.get(int(bits))
    return _hash(algo)(value) if algo else None


def octet_length(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bytes):
        return len(value)
    return len(_to_str(value).encode("utf-8", "surrogateescape"))


def mysql_locate(sub: Any, s: Any, pos: Any = 1) -> int | None:
    if sub is None or s is None:
        return None
    start = max(int(pos) - 1, 0)
    return _to_str(s).lower().find(_to_str(sub).lower(), start) + 1


def substring_index(s: Any, delim: Any, count: Any) -> str | None:
    if s is None or delim is None or count is None:
        return None
    s, delim, count = _to_str(s), _to_str(delim), int(count)
    if count == 0 or not delim:
        return ""
    parts = s.split(delim)
    return delim.join(parts[:count]) if count > 0 else delim.join(parts[count:])


def truncate(x: Any, d: Any) -> float | int | None:
    if x is None or d is None:
        return None
    d = int(d)
    factor = 10 ** d
    value = int(float(x) * factor) / factor
    return int(value) if d <= 0 else value


def regexp(pattern: Any, value: Any) -> int | None:
    if pattern is None or value is None:
        return None
    return 1 if re.search(_to_str(pattern), _to_str(value), re.I) else 0


def _integral(v: float) -> int:
    return int(v)


def mysql_mod(a: Any, b: Any) -> int | float | None:
    if a is None or b is None:
        return None
    if isinstance(a, int) and isinstance(b, int):
        return None if b == 0 else int(math.fmod(a, b))
    b = float(b)
    return None if b == 0 else math.fmod(float(a), b)


def mysql_isnull(value: Any) -> int:
    return 1 if value is None else 0


def register(conn: sqlite3.Connection, state: ConnectionState) -> None:
    def mysql_rand(seed: Any = None) -> float:
        if seed is not None:
            return RandState.from_int(int(seed)).next()
        if state.fx is None:
            state.fx = SessionFunctions(RandState(int(time.time()), id(state)))
        return state.fx.rand.next()

    def mysql_upsert_mark(value: Any, changed: Any) -> Any:
        if state.fx is not None:
            if changed:
                state.fx.upserts_changed += 1
            else:
                state.fx.upserts_unchanged += 1
        return value

    def mysql_set_last_id(value: Any) -> Any:
        if state.fx is not None and value is not None:
            state.fx.set_last_id = int(value)
        return value

    fns = {
        "concat": (-1, concat), "concat_ws": (-1, concat_ws),
        "unix_timestamp": (-1, unix_timestamp), "mysql_unix_timestamp": (-1, unix_timestamp),
        "from_unixtime": (-1, from_unixtime), "date_format": (2, date_format),
        "year": (1, _part(0)), "month": (1, _part(1)), "day": (1, _part(2)), "hour": (1, _part(3)),
        "minute": (1, _part(4)), "second": (1, _part(5)),
        "mysql_left": (2, left), "mysql_right": (2, right), "mysql_mod": (2, mysql_mod),
        "mysql_floor": (1, lambda x: None if x is None else _integral(math.floor(float(x)))),
        "mysql_ceil": (1, lambda x: None if x is None else _integral(math.ceil(float(x)))), "lpad": (3, lambda s, n, p: _pad(s, n, p, True)), "rpad": (3, lambda s, n, p: _pad(s, n, p, False)),
        "repeat": (2, lambda s, n: None if s is None or n is None else _to_str(s) * max(int(n), 0)),
        "reverse": (1, lambda s: None if s is None else _to_str(s)[::-1]),
        "md5": (1, _hash("md5")), "sha1": (1, _hash("sha1")), "sha": (1, _hash("sha1")), "sha2": (2, sha2),
        "uuid": (0, lambda: str(uuid.uuid1())), "octet_length": (1, octet_length),
        "mysql_locate": (-1, mysql_locate), "substring_index": (3, substring_index),
        "truncate": (2, truncate), "regexp": (2, regexp), "mysql_isnull": (1, mysql_isnull),
        "ascii": (1, lambda s: None if s is None else (ord(_to_str(s)[0]) if _to_str(s) else 0)),
        "mysql_rand": (-1, mysql_rand), "mysql_set_last_id": (1, mysql_set_last_id),
        "mysql_upsert_mark": (2, mysql_upsert_mark), "mysql_date_add": (4, date_add),
    }
    for name, (nargs, fn) in fns.items():
        deterministic = name not in ("uuid", "mysql_rand", "unix_timestamp", "mysql_unix_timestamp",
                                     "mysql_set_last_id", "mysql_upsert_mark")
        conn.create_function(name, nargs, fn, deterministic=deterministic)
