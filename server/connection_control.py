"""The login path's defences against a hostile network: mysqld's host blocking
(`max_connect_errors`, `FLUSH HOSTS`) and MySQL's connection_control delays after failed logins.

Contract (everything runs on the loop thread; the session calls, the admin flushes)
- Host blocking, as MariaDB's host cache does it (sql/hostname.cc, sql/sql_connect.cc): a
  connection that fails during the handshake -- closed or timed out before its login packet,
  a malformed login packet -- counts one error for its client address (`handshake_failed`);
  when a host has `max_connect_errors` of them with no successful login in between, its next
  connections get ER_HOST_IS_BLOCKED (1129) in place of the greeting (`blocked`) until FLUSH
  HOSTS (or `mariadb-admin flush-hosts`) empties the cache (`flush_hosts`). As in MariaDB:
  wrong passwords and unknown users do not count (they are authentication errors, and
  `Host_errors::sum_connect_errors` sums the handshake errors only: the delays below are the
  defence against guessing); a successful login resets its host's count (`login_succeeded`);
  127.0.0.1 and ::1 are never counted (`is_ip_loopback`); the cache keeps the HOST_CACHE_SIZE
  most recently failing hosts (MariaDB's default host_cache_size is 128 plus the connections).
- Failed-login delays, as MySQL's connection_control plugin: after
  `connection_control_failed_connections_threshold` (default 3; 0 disables) consecutive failed
  logins of one 'user'@'host' (wrong password or unknown user), each later login attempt of
  that account is answered only after a delay (`login_delay`): (failures - threshold + 1)
  seconds, kept within [connection_control_min_connection_delay,
  connection_control_max_connection_delay] milliseconds; a successful login resets the count.
  The session waits with an asyncio sleep: the loop and every other client go on, and the wait
  does not count against connect_timeout. At most MAX_TRACKED_ACCOUNTS accounts are
  tracked (a client chooses the user names), the least recently failed forgotten first, each
  by at most USERNAME_CHAR_LENGTH characters of its user name (no account has a longer one).
- `delays_generated` is Connection_control_delay_generated; `blocked_hosts()` lists the hosts
  at or over the limit.
"""

from __future__ import annotations

from collections import OrderedDict

HOST_CACHE_SIZE = 128 + 151
MAX_TRACKED_ACCOUNTS = 65536
USERNAME_CHAR_LENGTH = 128  # MariaDB's longest user name
LOOPBACK_ADDRESSES = frozenset({"127.0.0.1", "::1", "::ffff:127.0.0.1"})

DEFAULT_FAILED_CONNECTIONS_THRESHOLD = 3
DEFAULT_MIN_CONNECTION_DELAY_MS = 1000
MAX_CONNECTION_DELAY_MS = 2147483647


class ConnectionControl:
    def __init__(self) -> None:
        self._host_errors: OrderedDict[str, int] = OrderedDict()
        self._failed_logins: OrderedDict[tuple[str, str], int] = OrderedDict()
        self.delays_generated = 0

    # -- host blocking ---------------------------------------------------------------------------

    def blocked(self, host: str, max_connect_errors: int) -> bool:
        return self._host_errors.get(host, 0) >= max_connect_errors

    def handshake_failed(self, host: str) -> None:
        if host in LOOPBACK_ADDRESSES or not host:
            return
        errors = self._host_errors.pop(host, 0) + 1
        self._host_errors[host] = errors  # most recent last
        if len(self._host_errors) > HOST_CACHE_SIZE:
            self._host_errors.popitem(last=False)

    def flush_hosts(self) -> int:
        """FLUSH HOSTS: unblock every host; return how many were known."""
        known = len(self._host_errors)
        self._host_errors.clear()
        return known

    def blocked_hosts(self, max_connect_errors: int) -> list[str]:
        return [h for h, n in self._host_errors.items() if n >= max_connect_errors]

    # -- failed-login delays -----------------------------------------------------------------------

    def login_delay(self, user: str, host: str, threshold: int, min_ms: int, max_ms: int) -> float:
        """Seconds to wait before answering this login attempt of 'user'@'host' (0: none)."""
        failures = self._failed_logins.get(_account(user, host), 0)
        if not threshold or failures < threshold:
            return 0.0
        self.delays_generated += 1
        ms = min(max((failures - threshold + 1) * 1000, min_ms), max_ms)
        return ms / 1000.0

    def login_failed(self, user: str, host: str) -> None:
        key = _account(user, host)
        self._failed_logins[key] = self._failed_logins.pop(key, 0) + 1
        if len(self._failed_logins) > MAX_TRACKED_ACCOUNTS:
            self._failed_logins.popitem(last=False)

    def login_succeeded(self, user: str, host: str) -> None:
        self._failed_logins.pop(_account(user, host), None)
        self._host_errors.pop(host, None)


def _account(user: str, host: str) -> tuple[str, str]:
    return user[:USERNAME_CHAR_LENGTH], host
