"""Users, password hashes and global privileges, stored as JSON in the datadir.

Contract
- One `UserStore` per server; its file is `<datadir>/users.json`, rewritten atomically
  (temporary file + fsync + rename) after every change, so a crash leaves the old or the new
  table, never half of one.
- An account is `'user'@'host'`; `host` is a LIKE-style pattern (`%`, `_`). Authentication
  picks the most specific matching account first (literal hosts before patterns, then longer
  patterns; an exact user name only -- anonymous accounts are not supported), as mysqld sorts
  its acl_users.
- Passwords are kept only as mysql_native_password stage-2 hashes (SHA1(SHA1(pw)), shown as
  `*HEX`); an empty password is the empty hash.
- Privileges are sets of upper-case names at three levels, as mysqld keeps them: global
  (`ON *.*`; `ALL PRIVILEGES` implies every other), database (`ON db.*`) and table
  (`ON db.t`); a level's `ALL` is stored as every privilege that level can hold
  (`DB_PRIVILEGES`, `TABLE_PRIVILEGES`). Database names compare exactly, table names without
  case (the engine's catalog ignores case); below them routines (`ON PROCEDURE | FUNCTION db.r`:
  EXECUTE, ALTER ROUTINE, by the routine's name without case, shown and listed in
  mysql.procs_priv as mysqld's). A database-level name may be a pattern (`%`, `_`,
  a backslash before a literal `_`), as in mysqld: a database takes the privileges of its
  exact entry, else of the most specific pattern it matches (mysqld's order: the fewer names
  a pattern can match, the more specific; see `_generality`). A file written before the lower levels existed reads as global privileges
  only. What a statement needs is server/privileges.py's business.
  `root`@`%` is created or reset at startup from `--root-password` with ALL.
Only the event loop thread uses a store.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from protocol.auth import hash_from_text, hash_to_text, native_password_hash, verify_native_password
from server.variables import like_matcher

ALL = "ALL PRIVILEGES"
SUPER = "SUPER"
REPLICATION_SLAVE = "REPLICATION SLAVE"
REPLICATION_CLIENT = "REPLICATION CLIENT"
# Privileges GRANT accepts (global level); anything else is a syntax error for us. BINLOG
# MONITOR is kept under its old name REPLICATION CLIENT (one bit in MariaDB); the privileges
# MariaDB 10.5 split out of SUPER are kept by their own names.
KNOWN_PRIVILEGES = frozenset({
    ALL, SUPER, REPLICATION_SLAVE, REPLICATION_CLIENT, "SELECT", "INSERT", "UPDATE", "DELETE",
    "CREATE", "DROP", "RELOAD", "SHUTDOWN", "PROCESS", "FILE", "REFERENCES", "INDEX", "ALTER",
    "SHOW DATABASES", "CREATE TEMPORARY TABLES", "LOCK TABLES", "EXECUTE", "CREATE VIEW",
    "SHOW VIEW", "CREATE ROUTINE", "ALTER ROUTINE", "CREATE USER", "EVENT", "TRIGGER",
    "SET USER", "FEDERATED ADMIN", "CONNECTION ADMIN", "READ_ONLY ADMIN", "REPLICATION SLAVE ADMIN",
    "REPLICATION MASTER ADMIN", "BINLOG ADMIN", "BINLOG REPLAY", "SLAVE MONITOR",
    "USAGE",
})
GLOBAL_PRIVILEGES = KNOWN_PRIVILEGES - {ALL, "USAGE"}  # what a global ALL PRIVILEGES holds
# What a database-level and a table-level GRANT may name (mysqld's DB_ACLS, TABLE_ACLS).
DB_PRIVILEGES = frozenset({
    "SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "REFERENCES", "INDEX", "ALTER",
    "CREATE TEMPORARY TABLES", "LOCK TABLES", "EXECUTE", "CREATE VIEW", "SHOW VIEW", "CREATE ROUTINE",
    "ALTER ROUTINE", "EVENT", "TRIGGER",
})
TABLE_PRIVILEGES = frozenset({
    "SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "REFERENCES", "INDEX", "ALTER",
    "CREATE VIEW", "SHOW VIEW", "TRIGGER",
})
# What a routine-level GRANT (ON PROCEDURE / FUNCTION db.r) may name (mysqld's PROC_ACLS).
ROUTINE_PRIVILEGES = frozenset({"EXECUTE", "ALTER ROUTINE"})
ROUTINE_KINDS = ("PROCEDURE", "FUNCTION")  # SHOW GRANTS' order of the routine levels
GRANT_OPTION = "GRANT OPTION"  # held per level below the global one (mysqld's GRANT_ACL)

# MariaDB 10.11's global privilege bits (sql/privilege.h), as mysql.global_priv's "access" holds
# them; REPLICATION CLIENT is BINLOG MONITOR's old name. ALL PRIVILEGES is every bit but GRANT's.
_ACCESS_ORDER = (
    "SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "RELOAD", "SHUTDOWN", "PROCESS", "FILE",
    GRANT_OPTION, "REFERENCES", "INDEX", "ALTER", "SHOW DATABASES", SUPER, "CREATE TEMPORARY TABLES",
    "LOCK TABLES", "EXECUTE", REPLICATION_SLAVE, "BINLOG MONITOR", "CREATE VIEW", "SHOW VIEW",
    "CREATE ROUTINE", "ALTER ROUTINE", "CREATE USER", "EVENT", "TRIGGER", "CREATE TABLESPACE",
    "DELETE HISTORY", "SET USER", "FEDERATED ADMIN", "CONNECTION ADMIN", "READ_ONLY ADMIN",
    "REPLICATION SLAVE ADMIN", "REPLICATION MASTER ADMIN", "BINLOG ADMIN", "BINLOG REPLAY", "SLAVE MONITOR")
ACCESS_BITS = {name: 1 << bit for bit, name in enumerate(_ACCESS_ORDER)} | {
    REPLICATION_CLIENT: 1 << _ACCESS_ORDER.index("BINLOG MONITOR")}
_ALL_ACCESS = (1 << len(_ACCESS_ORDER)) - 1 - ACCESS_BITS[GRANT_OPTION]
# mysql.user's Y / N columns: the access bits from SELECT (bit 0) to DELETE HISTORY
_USER_PRIV_COLUMNS = _ACCESS_ORDER.index("DELETE HISTORY") + 1
# The order SHOW GRANTS lists privileges in, and 1142/1227 name them in: MariaDB's bit order.
ORDER = [REPLICATION_CLIENT if p == "BINLOG MONITOR" else p for p in _ACCESS_ORDER if p != GRANT_OPTION]


def command_names(missing: set[str]) -> str:
    """1142's list of the privileges a statement lacks, in MariaDB's bit order (GRANT OPTION is
    "GRANT"), cut as its %-.100T cuts it."""
    names = ", ".join("GRANT" if p == GRANT_OPTION else shown(p) for p in _ACCESS_ORDER
                      if p in missing or (p == "BINLOG MONITOR" and REPLICATION_CLIENT in missing))
    return names if len(names) <= 100 else names[:97] + "..."


def shown(privilege: str) -> str:
    """A privilege as MariaDB 10.11 names it in SHOW GRANTS and in 1227's message."""
    return "BINLOG MONITOR" if privilege == REPLICATION_CLIENT else privilege


@dataclass(slots=True)
class Account:
    user: str
    host: str
    password_hash: bytes = b""
    privileges: set[str] = field(default_factory=set)
    grant_option: bool = False
    require_ssl: bool = False  # CREATE/ALTER USER ... REQUIRE SSL: logins only over TLS
    databases: dict[str, set[str]] = field(default_factory=dict)  # db -> privileges (ON db.*)
    tables: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # (db, table lower) -> ...
    # (db, kind, routine lower) -> privileges (ON PROCEDURE / FUNCTION db.r, GRANT OPTION included)
    routines: dict[tuple[str, str, str], set[str]] = field(default_factory=dict)
    # (db, kind, routine lower) -> the routine's name as its first GRANT wrote it (mysql.procs_priv's)
    routine_names: dict[tuple[str, str, str], str] = field(default_factory=dict)
    # (db, table lower) or (db, kind, routine lower) -> 'user@host'
    grantors: dict[tuple[str, ...], str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"'{self.user}'@'{self.host}'"

    @property
    def access(self) -> int:
        """The global privileges as MariaDB's access bits (mysql.global_priv)."""
        bits = _ALL_ACCESS if ALL in self.privileges else 0
        for name in self.privileges:
            bits |= ACCESS_BITS.get(name, 0)
        return bits | (ACCESS_BITS[GRANT_OPTION] if self.grant_option else 0)

    def global_priv(self) -> str:
        """The account as mysql.global_priv's Priv column shows it (the JSON MariaDB keeps)."""
        return json.dumps({"access": self.access, "plugin": "mysql_native_password",
                           "authentication_string": hash_to_text(self.password_hash) if self.password_hash else ""},
                          separators=(",", ":"))

    def user_row(self) -> tuple:
        """The account as MariaDB's mysql.user view shows it: its `global_priv` read column by
        column (each privilege bit of `access` as Y / N, bit 0 first), no resource limits, never
        expired, not a role."""
        access, auth = self.access, hash_to_text(self.password_hash) if self.password_hash else ""
        flags = tuple("Y" if access >> bit & 1 else "N" for bit in range(_USER_PRIV_COLUMNS))
        return (self.host, self.user, auth, *flags, "ANY" if self.require_ssl else "", "", "", "",
                0, 0, 0, 0, "mysql_native_password", auth, "N", "N", "", "0.000000")

    def privilege_rows(self, view: str) -> list[tuple]:
        """The account's rows of information_schema.USER_PRIVILEGES, SCHEMA_PRIVILEGES or
        TABLE_PRIVILEGES (`view` lower-case) as MariaDB 10.11 lists them: per level, each
        privilege held there in MariaDB's bit order, IS_GRANTABLE YES where the level holds the
        grant option (no row of its own); a level holding nothing else one USAGE row."""
        if view == "user_privileges":
            held = set(_ACCESS_ORDER) if ALL in self.privileges else {
                "BINLOG MONITOR" if p == REPLICATION_CLIENT else p for p in self.privileges}
            return _privilege_rows((self.name, "def"), held, self.grant_option)
        if view == "schema_privileges":
            return [row for db, held in self.databases.items()
                    for row in _privilege_rows((self.name, "def", db), held, GRANT_OPTION in held)]
        return [row for (db, table), held in self.tables.items()
                for row in _privilege_rows((self.name, "def", db, table), held, GRANT_OPTION in held)]

    def db_rows(self) -> list[tuple]:
        """The account's rows of mysql.db: one per database grant, each privilege Y / N in the
        table's column order (a level holding every database privilege holds ALL, DELETE HISTORY
        included, as GRANT ALL gives it)."""
        return [(self.host, db, self.user, *_flags(held, _DB_COLUMNS, DB_PRIVILEGES))
                for db, held in self.databases.items()]

    def tables_priv_rows(self) -> list[tuple]:
        """The account's rows of mysql.tables_priv: one per table grant, its grantor, the
        timestamp MariaDB leaves zero, the privileges as the SET column's members."""
        return [(self.host, db, self.user, table, self.grantors.get((db, table), ""), "0000-00-00 00:00:00",
                 ",".join(member for member, privilege in _TABLE_MEMBERS
                          if privilege in held or (privilege == "DELETE HISTORY" and TABLE_PRIVILEGES <= held)), "")
                for (db, table), held in self.tables.items()]

    def procs_priv_rows(self) -> list[tuple]:
        """The account's rows of mysql.procs_priv: one per routine grant, its grantor, the
        privileges as the SET column's members, the timestamp left zero as tables_priv's."""
        return [(self.host, db, self.user, self.routine_names.get((db, kind, name), name), kind,
                 self.grantors.get((db, kind, name), ""),
                 ",".join(member for member, privilege in _ROUTINE_MEMBERS if privilege in held),
                 "0000-00-00 00:00:00")
                for (db, kind, name), held in self.routines.items()]

    def may_read(self, db: str, table: str) -> bool:
        """SELECT on `db`.`table` at any level (global, database, table)."""
        return (self.has("SELECT") or "SELECT" in self.database_privileges(db)
                or "SELECT" in self.tables.get((db, table.lower()), ()))

    def has(self, *privileges: str) -> bool:
        """True when the account holds ALL or at least one of `privileges`."""
        return ALL in self.privileges or any(p in self.privileges for p in privileges)

    def database_privileges(self, db: str) -> set[str]:
        """The database-level privileges that apply to `db` (its entry, or a pattern's)."""
        held = self.databases.get(db)
        if held is not None:
            return held
        patterns = [p for p in self.databases if "%" in p or "_" in p or "\\" in p]
        for pattern in sorted(patterns, key=_generality):
            if _db_matcher(pattern)(db):
                return self.databases[pattern]
        return set()

    def holds(self, privilege: str, db: str, table: str | None = None) -> bool:
        """True when `privilege` is held on `db`.`table` (or on `db` itself) at any level."""
        if ALL in self.privileges or privilege in self.privileges:
            return True
        if privilege in self.database_privileges(db):
            return True
        return table is not None and privilege in self.tables.get((db, table.lower()), ())

    def holds_routine(self, privilege: str, db: str, kind: str, name: str) -> bool:
        """True when `privilege` (EXECUTE, ALTER ROUTINE, GRANT OPTION) is held on the routine:
        globally, on its database or on the routine itself (routine names ignore case)."""
        if privilege == GRANT_OPTION:
            if self.grant_option or GRANT_OPTION in self.database_privileges(db):
                return True
        elif self.holds(privilege, db):
            return True
        return privilege in self.routines.get((db, kind, name.lower()), ())

    def sees_table(self, db: str, table: str) -> bool:
        """Any privilege on the table at any level (SHOW TABLES, SHOW CREATE TABLE, DESCRIBE)."""
        return (ALL in self.privileges or not self.privileges.isdisjoint(TABLE_PRIVILEGES)
                or bool(self.database_privileges(db)) or bool(self.tables.get((db, table.lower()))))

    def sees_database(self, db: str) -> bool:
        """Any privilege in the database at any level, a routine's too, as mysqld's
        check_grant_db (USE, SHOW TABLES FROM, SHOW DATABASES)."""
        if ALL in self.privileges or not self.privileges.isdisjoint(DB_PRIVILEGES):
            return True
        return (bool(self.database_privileges(db)) or any(d == db and p for (d, _), p in self.tables.items())
                or any(d == db and p for (d, _, _), p in self.routines.items()))

    def grants(self) -> list[str]:
        """SHOW GRANTS lines, worded and ordered as MariaDB 10.11 shows them: the global line,
        then each database, then each table."""
        if ALL in self.privileges:
            privs = "ALL PRIVILEGES"
        else:
            named = [shown(p) for p in ORDER if p in self.privileges]
            privs = ", ".join(named) if named else "USAGE"
        to = f"TO `{self.user}`@`{self.host}`"
        line = f"GRANT {privs} ON *.* {to}"
        if self.password_hash:
            line += f" IDENTIFIED BY PASSWORD '{hash_to_text(self.password_hash)}'"
        if self.require_ssl:
            line += " REQUIRE SSL"
        if self.grant_option:
            line += " WITH GRANT OPTION"
        lines = [line]
        for db in sorted(self.databases, key=lambda d: (_generality(d), d)):  # mysqld's order
            lines.append(_level_line(self.databases[db], DB_PRIVILEGES, f"`{db}`.*", to))
        for db, table in sorted(self.tables):
            lines.append(_level_line(self.tables[(db, table)], TABLE_PRIVILEGES, f"`{db}`.`{table}`", to))
        for kind in ROUTINE_KINDS:  # (a routine level never shows ALL PRIVILEGES, as mysqld's)
            lines.extend(_level_line(held, None, f"{kind} `{db}`.`{name}`", to)
                         for (db, k, name), held in sorted(self.routines.items()) if k == kind)
        return lines


def _generality(pattern: str, maxlen: int = 64) -> tuple[int, int, int, int]:
    """A sort key, smaller for a more specific database pattern, ordering patterns as mysqld
    orders its database grants: by how many names a pattern can match, which grows with the
    room its `%` leave (L: the name length they may fill) and the count of its `_` (M), then
    by the count of `%` (K), then by the literal prefix before the first wildcard (P)."""
    literal = ones = manys = prefix = 0
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch in "%_":
            if not manys and not ones:
                prefix = literal
            if ch == "%":
                manys += 1
                while i + 1 < len(pattern) and pattern[i + 1] == "%":
                    i += 1
            else:
                ones += 1
        else:
            if ch == "\\" and i + 1 < len(pattern):
                i += 1
            literal += 1
        i += 1
    manys, ones = min(manys, 31), min(ones, 31)
    room = maxlen - literal - ones if manys else 0
    if room > ones:
        return (2 * room + 1, manys, ones, prefix)
    return (2 * ones, room, manys, prefix)


@functools.lru_cache(maxsize=256)
def _db_matcher(pattern: str) -> Callable[[str], object]:
    return like_matcher(pattern, ignore_case=False)


# mysql.db's privilege columns (Select_priv ... Delete_history_priv) in order, by privilege
_DB_COLUMNS = ("SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", GRANT_OPTION, "REFERENCES", "INDEX",
               "ALTER", "CREATE TEMPORARY TABLES", "LOCK TABLES", "CREATE VIEW", "SHOW VIEW", "CREATE ROUTINE",
               "ALTER ROUTINE", "EXECUTE", "EVENT", "TRIGGER", "DELETE HISTORY")
# mysql.tables_priv's Table_priv members in order, with the privilege each stands for
_TABLE_MEMBERS = (("Select", "SELECT"), ("Insert", "INSERT"), ("Update", "UPDATE"), ("Delete", "DELETE"),
                  ("Create", "CREATE"), ("Drop", "DROP"), ("Grant", GRANT_OPTION), ("References", "REFERENCES"),
                  ("Index", "INDEX"), ("Alter", "ALTER"), ("Create View", "CREATE VIEW"), ("Show view", "SHOW VIEW"),
                  ("Trigger", "TRIGGER"), ("Delete versioning rows", "DELETE HISTORY"))
# mysql.procs_priv's Proc_priv members in order
_ROUTINE_MEMBERS = (("Execute", "EXECUTE"), ("Alter Routine", "ALTER ROUTINE"), ("Grant", GRANT_OPTION))


def _flags(held: set[str], columns: tuple[str, ...], every: frozenset[str]) -> tuple[str, ...]:
    whole = every <= held
    return tuple("Y" if p in held or (whole and p == "DELETE HISTORY") else "N" for p in columns)


def _privilege_rows(level: tuple, held: set[str], grantable: bool) -> list[tuple]:
    shown_held = [p for p in _ACCESS_ORDER if p != GRANT_OPTION and p in held] or ["USAGE"]
    return [(*level, p, "YES" if grantable else "NO") for p in shown_held]


def _level_line(held: set[str], every: frozenset[str] | None, on: str, to: str) -> str:
    """A level's SHOW GRANTS line: ALL PRIVILEGES where it holds `every` privilege it may (None:
    each named, as a routine level shows them)."""
    privs = "ALL PRIVILEGES" if every is not None and every <= held else ", ".join(p for p in ORDER if p in held) or "USAGE"
    option = " WITH GRANT OPTION" if GRANT_OPTION in held else ""
    return f"GRANT {privs} ON {on} {to}{option}"


def host_matches(pattern: str, host: str) -> bool:
    """mysqld's host match: LIKE pattern, case-insensitive; `localhost` also matches loopback."""
    if pattern == "%":
        return True
    if like_matcher(pattern)(host):
        return True
    if pattern.lower() == "localhost" and host in ("127.0.0.1", "::1"):
        return True
    return False


def _specificity(account: Account) -> tuple[int, int]:
    wild = "%" in account.host or "_" in account.host
    return (0 if not wild else 1, -len(account.host))


class UserStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._accounts: dict[tuple[str, str], Account] = {}
        if path.exists():
            self._load()

    # -- persistence --------------------------------------------------------------------------

    def _load(self) -> None:
        data = json.loads(self.path.read_text())
        for item in data.get("users", []):
            account = Account(
                user=item["user"],
                host=item["host"],
                password_hash=hash_from_text(item.get("password", "")),
                privileges=set(item.get("privileges", [])),
                grant_option=bool(item.get("grant_option", False)),
                require_ssl=bool(item.get("require_ssl", False)),
                databases={d["db"]: set(d["privileges"]) for d in item.get("databases", [])},
                tables={(t["db"], t["table"]): set(t["privileges"]) for t in item.get("tables", [])},
                routines={(r["db"], r["kind"], r["name"].lower()): set(r["privileges"]) for r in item.get("routines", [])},
                routine_names={(r["db"], r["kind"], r["name"].lower()): r["name"] for r in item.get("routines", [])},
                grantors={**{(t["db"], t["table"]): t["grantor"] for t in item.get("tables", []) if "grantor" in t},
                          **{(r["db"], r["kind"], r["name"].lower()): r["grantor"] for r in item.get("routines", [])
                             if "grantor" in r}},
            )
            self._accounts[(account.user, account.host.lower())] = account

    def _save(self) -> None:
        data = {
            "users": [
                {
                    "user": a.user,
                    "host": a.host,
                    "password": hash_to_text(a.password_hash),
                    "privileges": sorted(a.privileges),
                    "grant_option": a.grant_option,
                    "require_ssl": a.require_ssl,
                    "databases": [{"db": d, "privileges": sorted(p)} for d, p in sorted(a.databases.items())],
                    "tables": [{"db": d, "table": t, "privileges": sorted(p),
                                **({"grantor": a.grantors[(d, t)]} if (d, t) in a.grantors else {})}
                               for (d, t), p in sorted(a.tables.items())],
                    "routines": [{"db": d, "kind": k, "name": a.routine_names.get((d, k, n), n), "privileges": sorted(p),
                                  **({"grantor": a.grantors[(d, k, n)]} if (d, k, n) in a.grantors else {})}
                                 for (d, k, n), p in sorted(a.routines.items())],
                }
                for a in self._accounts.values()
            ]
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w") as f:
            json.dump(data, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)

    # -- queries ------------------------------------------------------------------------------

    def get(self, user: str, host: str) -> Account | None:
        return self._accounts.get((user, host.lower()))

    def accounts(self) -> list[Account]:
        return list(self._accounts.values())

    def match(self, user: str, client_host: str) -> Account | None:
        """The account a client `user` connecting from `client_host` logs in as."""
        candidates = [
            a for a in self._accounts.values() if a.user == user and host_matches(a.host, client_host)
        ]
        if not candidates:
            return None
        return min(candidates, key=_specificity)

    def authenticate(self, user: str, client_host: str, salt: bytes, response: bytes) -> Account | None:
        account = self.match(user, client_host)
        if account is None or not verify_native_password(salt, response, account.password_hash):
            return None
        return account

    # -- changes (each persisted at once) -------------------------------------------------------

    def ensure_root(self, password: str) -> None:
        """`root`@`%` with ALL PRIVILEGES WITH GRANT OPTION and the startup password."""
        root = self._accounts.get(("root", "%"))
        new_hash = native_password_hash(password)
        if root is None:
            root = Account("root", "%")
            self._accounts[("root", "%")] = root
        elif root.password_hash == new_hash and ALL in root.privileges and root.grant_option:
            return
        root.password_hash = new_hash
        root.privileges = {ALL}
        root.grant_option = True
        self._save()

    def create(self, user: str, host: str, password_hash: bytes) -> Account:
        account = Account(user, host, password_hash)
        self._accounts[(user, host.lower())] = account
        self._save()
        return account

    def drop(self, user: str, host: str) -> None:
        del self._accounts[(user, host.lower())]
        self._save()

    def grant(self, account: Account, privileges: set[str], grant_option: bool,
              db: str | None = None, table: str | None = None, grantor: str = "") -> None:
        """GRANT at the global level (db None), on `db`.* (table None) or on `db`.`table` by
        `grantor` ('user@host', kept for a table's grant as mysql.tables_priv shows it); the
        caller has checked that the level may hold `privileges`."""
        if db is None:
            account.privileges |= privileges
            account.privileges.discard("USAGE")
            if ALL in account.privileges:
                account.privileges = {ALL}
            account.grant_option = account.grant_option or grant_option
        else:
            held = _level(account, db, table, create=True)
            assert held is not None
            held |= _expand(privileges, TABLE_PRIVILEGES if table is not None else DB_PRIVILEGES)
            if grant_option:
                held.add(GRANT_OPTION)
            if not held:  # GRANT USAGE ON db.*: nothing to keep
                _level(account, db, table, create=False, drop=True)
            elif table is not None:
                account.grantors[(db, table.lower())] = grantor
        self._save()

    def revoke(self, account: Account, privileges: set[str], db: str | None = None,
               table: str | None = None) -> bool:
        """REVOKE at one level; False (nothing changed) when the account has no grant there.
        ALL PRIVILEGES leaves the grant option, as in mysqld: only `GRANT OPTION` revokes it."""
        if db is None:
            account.privileges = set() if ALL in privileges else account.privileges - privileges
            if GRANT_OPTION in privileges:
                account.grant_option = False
        else:
            held = _level(account, db, table, create=False)
            if held is None:
                return False
            held -= _expand(privileges, TABLE_PRIVILEGES if table is not None else DB_PRIVILEGES)
            if GRANT_OPTION in privileges:
                held.discard(GRANT_OPTION)
            if not held:
                _level(account, db, table, create=False, drop=True)
        self._save()
        return True

    def grant_routine(self, account: Account, privileges: set[str], grant_option: bool, db: str, kind: str,
                      name: str, grantor: str = "") -> None:
        """GRANT ON PROCEDURE / FUNCTION `db`.`name` by `grantor`; the caller has checked that the
        routine exists and the level may hold `privileges`."""
        key = (db, kind, name.lower())
        held = account.routines.setdefault(key, set())
        account.routine_names.setdefault(key, name)
        held |= _expand(privileges, ROUTINE_PRIVILEGES)
        if grant_option:
            held.add(GRANT_OPTION)
        if not held:  # GRANT USAGE ON PROCEDURE ...: nothing to keep
            _drop_routine(account, key)
        else:
            account.grantors[key] = grantor
        self._save()

    def revoke_routine(self, account: Account, privileges: set[str], db: str, kind: str, name: str) -> bool:
        """REVOKE ON PROCEDURE / FUNCTION; False (nothing changed) without a grant there."""
        key = (db, kind, name.lower())
        held = account.routines.get(key)
        if held is None:
            return False
        held -= _expand(privileges, ROUTINE_PRIVILEGES)
        if GRANT_OPTION in privileges:
            held.discard(GRANT_OPTION)
        if not held:
            _drop_routine(account, key)
        self._save()
        return True

    def drop_routine_grants(self, db: str, kind: str, name: str) -> None:
        """Every account's grants on a routine dropped (automatic_sp_privileges' revoke)."""
        key = (db, kind, name.lower())
        holders = [a for a in self._accounts.values() if key in a.routines]
        for account in holders:
            _drop_routine(account, key)
        if holders:
            self._save()

    def revoke_all(self, account: Account) -> None:
        """REVOKE ALL PRIVILEGES, GRANT OPTION: nothing left at any level."""
        account.privileges = set()
        account.grant_option = False
        account.databases.clear()
        account.tables.clear()
        account.routines.clear()
        account.routine_names.clear()
        account.grantors.clear()
        self._save()

    def set_require_ssl(self, account: Account, require: bool) -> None:
        account.require_ssl = require
        self._save()

    def set_password(self, account: Account, password_hash: bytes) -> None:
        account.password_hash = password_hash
        self._save()


def _level(account: Account, db: str, table: str | None, *, create: bool, drop: bool = False) -> set[str] | None:
    """The account's privileges at one level below the global one (created, or dropped)."""
    levels: dict = account.databases if table is None else account.tables
    key = db if table is None else (db, table.lower())
    if drop:
        if table is not None:
            account.grantors.pop(key, None)
        return levels.pop(key, None)
    held = levels.get(key)
    if held is None and create:
        held = levels[key] = set()
    return held


def _drop_routine(account: Account, key: tuple[str, str, str]) -> None:
    """The account's grant on a routine, gone."""
    for kept in (account.routines, account.routine_names, account.grantors):
        kept.pop(key, None)


def _expand(privileges: set[str], every: frozenset[str]) -> set[str]:
    return set(every) if ALL in privileges else privileges - {"USAGE", GRANT_OPTION}
