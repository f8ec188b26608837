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
- Privileges are global only (`ON *.*`), a set of upper-case names; `ALL PRIVILEGES` implies
  every other. `root`@`%` is created or reset at startup from `--root-password` with ALL.
Only the event loop thread uses a store.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from protocol.auth import hash_from_text, hash_to_text, native_password_hash, verify_native_password
from server.variables import like_matcher

ALL = "ALL PRIVILEGES"
SUPER = "SUPER"
REPLICATION_SLAVE = "REPLICATION SLAVE"
REPLICATION_CLIENT = "REPLICATION CLIENT"
# Privileges GRANT accepts (global level); anything else is a syntax error for us.
KNOWN_PRIVILEGES = frozenset({
    ALL, SUPER, REPLICATION_SLAVE, REPLICATION_CLIENT, "SELECT", "INSERT", "UPDATE", "DELETE",
    "CREATE", "DROP", "RELOAD", "SHUTDOWN", "PROCESS", "FILE", "REFERENCES", "INDEX", "ALTER",
    "SHOW DATABASES", "CREATE TEMPORARY TABLES", "LOCK TABLES", "EXECUTE", "CREATE VIEW",
    "SHOW VIEW", "CREATE ROUTINE", "ALTER ROUTINE", "CREATE USER", "EVENT", "TRIGGER",
    "BINLOG MONITOR", "REPLICATION MASTER ADMIN", "REPLICATION SLAVE ADMIN", "CONNECTION ADMIN",
    "USAGE",
})
# The order SHOW GRANTS lists privileges in (mysqld's order), for a stable display.
_ORDER = [
    "SELECT", "INSERT", "UPDATE", "DELETE", "CREATE", "DROP", "RELOAD", "SHUTDOWN", "PROCESS",
    "FILE", "REFERENCES", "INDEX", "ALTER", "SHOW DATABASES", SUPER, "CREATE TEMPORARY TABLES",
    "LOCK TABLES", "EXECUTE", REPLICATION_SLAVE, REPLICATION_CLIENT, "BINLOG MONITOR",
    "CREATE VIEW", "SHOW VIEW", "CREATE ROUTINE", "ALTER ROUTINE", "CREATE USER", "EVENT",
    "TRIGGER", "REPLICATION MASTER ADMIN", "REPLICATION SLAVE ADMIN", "CONNECTION ADMIN",
]


@dataclass(slots=True)
class Account:
    user: str
    host: str
    password_hash: bytes = b""
    privileges: set[str] = field(default_factory=set)
    grant_option: bool = False
    require_ssl: bool = False  # CREATE/ALTER USER ... REQUIRE SSL: logins only over TLS

    @property
    def name(self) -> str:
        return f"'{self.user}'@'{self.host}'"

    def has(self, *privileges: str) -> bool:
        """True when the account holds ALL or at least one of `privileges`."""
        return ALL in self.privileges or any(p in self.privileges for p in privileges)

    def grants(self) -> list[str]:
        """SHOW GRANTS lines, worded as MariaDB 10.11 words them."""
        if ALL in self.privileges:
            privs = "ALL PRIVILEGES"
        else:
            named = [p for p in _ORDER if p in self.privileges]
            privs = ", ".join(named) if named else "USAGE"
        line = f"GRANT {privs} ON *.* TO `{self.user}`@`{self.host}`"
        if self.password_hash:
            line += f" IDENTIFIED BY PASSWORD '{hash_to_text(self.password_hash)}'"
        if self.require_ssl:
            line += " REQUIRE SSL"
        if self.grant_option:
            line += " WITH GRANT OPTION"
        return [line]


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

    def grant(self, account: Account, privileges: set[str], grant_option: bool) -> None:
        account.privileges |= privileges
        account.privileges.discard("USAGE")
        if ALL in account.privileges:
            account.privileges = {ALL}
        account.grant_option = account.grant_option or grant_option
        self._save()

    def revoke(self, account: Account, privileges: set[str]) -> None:
        if ALL in privileges:
            account.privileges = set()
            account.grant_option = False
        else:
            account.privileges -= privileges
        self._save()

    def set_require_ssl(self, account: Account, require: bool) -> None:
        account.require_ssl = require
        self._save()

    def set_password(self, account: Account, password_hash: bytes) -> None:
        account.password_hash = password_hash
        self._save()
