"""Durability under faults: a semi-sync cluster, a load that remembers every acknowledged commit,
faults in a seeded random loop, and the checker that proves no acknowledged transaction is lost.

The cluster: our master (AFTER_SYNC, wait for `wait_count` slaves, wait_no_slave ON, a timeout
longer than the whole run, so semi-sync can never fall back by timing out) and two of our slaves,
each connected to the master through a `FaultProxy`. Writers connect to the master directly.
With `sub_slave` the first slave is a middle slave: a third slave of ours (`subslave`)
replicates from it (semi-sync on that hop too, with a short timeout: the middle slave's applier
commits through its own group commit, log_slave_updates ON), so the middle slave's binlog is in
the chain the checker compares.

The load: `writers` threads, each committing transactions of 1 or 2 rows with unique keys
(`w<writer>.<n>.<row>`), and writing down in the `Ledger` the outcome the client saw: OK
(*acknowledged*) or an error (*in doubt*: it may or may not have committed).

The faults (`FAULTS`): kill -9 + restart of the master (alone, or while one slave's link is cut, or
while every slave's is); kill -9 + restart of a slave; kill -9 + restart of the middle slave
(`middle-kill`, with `sub_slave`); SIGSTOP + SIGCONT of a slave or of the
master; a cut link (the slave's proxy closes its connections and drops every byte, both ways, until
restored: a partition); a slow link (the proxy delays and fragments every chunk, both ways); a
corrupted ack (the proxy damages the next semi-sync ack a slave sends: its magic, its position or
its file name, each a change the master can detect); a corrupted event (the proxy flips the last
byte of the next chunk the master sends, usually an event's CRC32); a full disk on the master or
on a slave (each daemon's datadir is a small tmpfs, `DISK_SIZE`; the fault fills it while the
writers run and frees it: the master's commits fail or wait meanwhile and it recovers by itself;
a slave's IO thread waits for space and resumes by itself, and a SQL thread stopped by a failed
engine commit, or by its own binlog's write (log_slave_updates: 1026), is started again with
START SLAVE, as a DBA does); a failover (`failover`, only when asked for by name, and not with a
sub-slave): kill -9 the master, `semisync failover` promotes the most advanced slave and repoints
the other, the writers and every FaultProxy move to the new master, the old master restarts with
`--init-rpl-role SLAVE` (its unacked binlog tail cut) and a second `semisync failover` run rejoins
it by GTID (current_pos); every slave then replicates through its proxy again. The master role
moves; the daemons keep their names (the one called "master" may be a slave). One fault at a
time, healed before the next, so the master always has a healthy slave once the fault is over.

The guarantee checked (MySQL's AFTER_SYNC semantics, seed 003 and WL#7169): a commit that
returned OK while semi-sync was ON was, at that moment, durable in the master's binlog and in the
relay log of at least `wait_count` slaves (ours fsync the relay log before acking). The rules
(`Violation.rule`):
- `acked-lost-on-master` (a): after every restart of the master, and at the end, every
  acknowledged transaction is in the master's table.
- `acked-not-on-slaves` (b): whenever the master is killed (in the loop, and once more at the
  end, with the load stopped), before it comes back, every transaction acknowledged until then
  is complete in the relay log (committed by its XID) or in the table of at least `wait_count`
  slaves. Nothing can reach a slave while the master is dead, so this is the state at the kill.
- `semisync-off` (guards (b)): a sampler reads the master's status every 0.25 s; semi-sync must
  be ON with `no_tx` = 0, otherwise (b) does not hold by design and the run says so.
- `acked-lost-after-failover`: after every failover, every transaction acknowledged until the
  kill is in the promoted slave's table (the tool promotes the slave that holds every other's
  GTIDs, once its relay log is applied; under AFTER_SYNC an acked commit was in `wait_count`
  slaves' relay logs). An in-doubt one may be there or not. `failover-failed`: the tool refused,
  failed, or left the old master unjoined.
- `diverged` (c): after catch-up each slave's table is the master's, row for row (the
  sub-slave's too: what the middle slave applied and binlogged, nothing twice, nothing lost,
  across its kills).
- `duplicate`, `phantom`, `torn` (d): no key twice, no key nobody attempted, no transaction in
  part; a transaction whose client saw an error may be present (once) or absent.
- `failed-visible` (d): a transaction whose client got an error from the server (not a lost
  connection, not 1053) is on no server: the master said it failed (e.g. 1026 on a full disk).
- `corrupt-ack-accepted`: the master must drop the connection that carried a corrupted ack
  ("errors say who broke the rules"), and must not credit it (then (b) would fail).
- `corrupt-event-accepted`: a slave must drop the connection that delivered a corrupted event
  (its IO thread stops with an error, as mysqld's, and the loop runs START SLAVE; or it
  reconnects); applying it would also show as `diverged`.
- `no-progress` (a hang): after every healed fault the load must commit again within 30 s.
- `daemon-died`: no daemon exits unless we killed it.
- `errant-gtid`: at the end, once caught up, every server's `@@gtid_binlog_state` and
  `@@gtid_current_pos` name the same last seq_no per domain and server_id: no server holds a GTID
  the others lack (an old master's unacked tail that survived its rejoin would show here).
- `log-unreadable`: at the end, with every daemon stopped, `mariadb-binlog` reads every binlog
  and relay log file end to end (exit 0).

Run a soak with `python -m tests.support.faults --minutes 10 --seed S` (docs/CONTRIBUTING.md);
with failovers, `--faults failover,failover,master-kill,...` (a kind named twice is chosen twice
as often; without middle-kill).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

import pymysql

from binlog.index import read_index
from binlog.reader import BinlogFileError, iter_events
from protocol.errors import ProtocolError
from protocol.events import EventType, decode_header
from tests.support.daemons import ROOT, Daemon, wait_for
from tests.support.disk import fill, tmpfs
from tests.support.slave_daemon import slave_status
from tests.support.wire_proxy import WireProxy, is_ack

REPL_PASSWORD = "replpw"
TABLE = "faults.t"
KEY = re.compile(rb"'(w\d+\.\d+)\.\d+'")
HEAL_TIMEOUT = 30.0
DISK_SIZE = 256 << 20  # each daemon's tmpfs datadir (only what is written uses memory)
FILLER = "disk-filler"  # the file that takes a datadir's last byte during a disk-full fault
# in Last_SQL_Error when a full disk stopped the SQL thread: the engine's commit, or (log_slave_updates)
# the write of the slave's own binlog (1026, errno 28)
DISK_FULL_ERRORS = ("disk is full", "No space left on device")
# The middle slave's source side: semi-sync to the sub-slave, with a short timeout (a sub-slave
# that lags must not hold the middle slave's applier, which commits through its group commit)
MIDDLE_SOURCE = ("--rpl-semi-sync-master-enabled=ON", "--rpl-semi-sync-master-timeout=2000")
# A replica's connection settings; a master has them too, for the day it is demoted
REPLICA_SETTINGS = ("--master-connect-retry=0.3", "--master-heartbeat-period=0.5", "--slave-net-timeout=2")
# What makes a server a master or a slave on its command line (set_role rewrites them)
ROLE_OPTIONS = ("--rpl-semi-sync-master-enabled=", "--rpl-semi-sync-slave-enabled=", "--read-only=",
                "--master-host=", "--master-port=", "--master-user=", "--master-password=")


# -- the ledger: what every client was told ---------------------------------------------------
@dataclass
class Txn:
    txid: str
    rows: int
    started: float
    # "ok" (acknowledged) | "error" (in doubt) | "failed" (the server said so) | "pending"
    outcome: str = "pending"
    ended: float = 0.0

    def keys(self) -> list[str]:
        return [f"{self.txid}.{j}" for j in range(self.rows)]


class Ledger:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.txns: dict[str, Txn] = {}
        self._outcomes: Counter[str] = Counter()

    def attempt(self, txid: str, rows: int) -> Txn:
        txn = Txn(txid, rows, time.monotonic())
        with self._lock:
            self.txns[txid] = txn
            self._outcomes[txn.outcome] += 1
        return txn

    def end(self, txn: Txn, outcome: str) -> None:
        """`outcome` "error", called while handling the client's exception, becomes "failed" when
        the server answered with an error (`told_failed`)."""
        if outcome == "error" and told_failed(sys.exc_info()[1]):
            outcome = "failed"
        with self._lock:
            self._outcomes[txn.outcome] -= 1
            self._outcomes[outcome] += 1
            txn.outcome, txn.ended = outcome, time.monotonic()

    def acked(self) -> set[str]:
        with self._lock:
            return {t.txid for t in self.txns.values() if t.outcome == "ok"}

    def count(self, outcome: str) -> int:
        with self._lock:
            return self._outcomes[outcome]


class Load:
    """`n` writer threads on the master. `idle()` is true when every writer has seen its
    connection fail (or stopped): no further OK can arrive from a dead master."""

    def __init__(self, master: Daemon, ledger: Ledger, n: int, seed: int) -> None:
        self.master, self.ledger = master, ledger
        self._stop = threading.Event()
        self._connected = [False] * n
        self._threads = [threading.Thread(target=self._write, args=(w, random.Random(seed * 1000 + w)),
                                          daemon=True, name=f"writer-{w}") for w in range(n)]

    def start(self) -> None:
        for t in self._threads:
            t.start()

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(HEAL_TIMEOUT)

    def idle(self) -> bool:
        return not any(self._connected)

    def _write(self, w: int, rng: random.Random) -> None:
        conn = None
        n = 0
        while not self._stop.is_set():
            if conn is None:
                try:
                    conn = self.master.connect(read_timeout=120, write_timeout=30)
                    self._connected[w] = True
                except pymysql.err.MySQLError:
                    time.sleep(0.1)
                    continue
            txn = self.ledger.attempt(f"w{w}.{n}", rng.choice((1, 1, 2)))
            n += 1
            try:
                with conn.cursor() as cur:
                    if txn.rows > 1:
                        cur.execute("BEGIN")
                    for key in txn.keys():
                        cur.execute(f"INSERT INTO {TABLE} (k, w, n) VALUES ('{key}', {w}, {n})")
                    if txn.rows > 1:
                        cur.execute("COMMIT")
                self.ledger.end(txn, "ok")
            except (pymysql.err.MySQLError, OSError):
                self.ledger.end(txn, "error")
                self._connected[w] = False
                if conn.open:
                    conn.close()
                conn = None
        self._connected[w] = False
        if conn is not None and conn.open:
            conn.close()


def told_failed(error: BaseException | None) -> bool:
    """Did the server answer with an error (the transaction did not commit, e.g. 1026 on a full
    disk; the client then drops its connection, which rolls back the rest)? A lost connection
    (client errors, 2000 and up) and 1053 (shutdown while the commit waited) leave it in doubt."""
    code = error.args[0] if isinstance(error, pymysql.err.MySQLError) and error.args else 0
    return isinstance(code, int) and 0 < code < 2000 and code != 1053


# -- the link between a slave and the master --------------------------------------------------
ACK_DAMAGE = ("magic", "position", "file")


class FaultProxy(WireProxy):
    """A WireProxy with link faults: `partition()` (close every connection, then drop every byte
    both ways until `restore()`), `slow(seconds)` (each chunk waits up to that long and goes on
    in small pieces, both ways), `corrupt_next_ack(how)` (damage the next ack the slave sends).
    Slave -> master bytes are forwarded as whole packets, so an ack can be rewritten."""

    def __init__(self, target_port: int, rng: random.Random) -> None:
        super().__init__(target_port)
        self.rng = rng
        self.mode = "pass"  # "pass" | "partition" | "slow"
        self.delay = 0.0
        self._damage: str | None = None
        self.corrupted: list[tuple[socket.socket, str, bytes]] = []  # (master side, how, bytes sent)
        self.closed_by_master: set[socket.socket] = set()

    def partition(self) -> None:
        with self.lock:
            self.mode = "partition"
        self.cut()

    def slow(self, delay: float) -> None:
        with self.lock:
            self.mode, self.delay = "slow", delay

    def restore(self) -> None:
        with self.lock:
            was, self.mode = self.mode, "pass"
        if was == "partition":
            self.cut()  # bytes were dropped: those streams cannot go on

    def corrupt_next_ack(self, how: str) -> None:
        with self.lock:
            self._damage = how

    def _pump(self, src, dst, on_data) -> None:
        super()._pump(src, dst, on_data)
        if on_data == self._server_bytes:
            with self.lock:
                self.closed_by_master.add(src)

    def _send(self, dst: socket.socket, data: bytes) -> None:
        with self.lock:
            mode, delay = self.mode, self.delay
        if mode == "partition":
            return
        try:
            if mode == "slow":
                time.sleep(self.rng.uniform(0, delay))
                pos = 0
                while pos < len(data):
                    step = self.rng.randint(1, 512)
                    dst.sendall(data[pos : pos + step])
                    pos += step
                    time.sleep(self.rng.uniform(0, 0.002))
            else:
                dst.sendall(data)
        except OSError:
            pass

    def _client_bytes(self, dst: socket.socket, data: bytes, buf: bytearray) -> bool:
        for packet in self._acks_noted(data, buf):
            if is_ack(packet):
                with self.lock:
                    how, self._damage = self._damage, None
                if how is not None:
                    packet = damage_ack(packet, how)
                    with self.lock:
                        self.corrupted.append((dst, how, packet))
            self._send(dst, packet)
        return False

    def _server_bytes(self, dst: socket.socket, data: bytes, buf: bytearray) -> bool:
        # corrupt_next flips the last byte: usually the CRC32 of the chunk's last event
        self._send(dst, self._corrupted(data))
        return False


def damage_ack(packet: bytes, how: str) -> bytes:
    """An ack packet (4-byte header + EF + 8-byte position + file name) damaged so that the master
    can tell: a wrong magic, a position past anything sent, a file name that is not a binlog's."""
    p = bytearray(packet)
    if how == "magic":
        p[4] ^= 0xFF
    elif how == "position":
        p[4 + 8] ^= 0x40  # the position's most significant byte: 2**62 or more
    else:
        dot = p.rindex(b".")
        p[dot] = ord("#")  # mysql-bin#000001
    return bytes(p)


# -- the cluster ------------------------------------------------------------------------------
class Cluster:
    """`disk_size`: each daemon's datadir is a tmpfs of that size, mounted by `start` and
    unmounted by `close`."""

    def __init__(self, workdir: Path, rng: random.Random, wait_count: int = 1, slaves: int = 2,
                 disk_size: int = 0, sub_slave: bool = False) -> None:
        self.workdir = workdir
        self.wait_count = wait_count
        self.disk_size = disk_size
        self._mounts = ExitStack()
        # every server has the master's semi-sync settings: any slave may be promoted
        self.source_settings = (
            "--rpl-semi-sync-master-wait-point=AFTER_SYNC",
            f"--rpl-semi-sync-master-wait-for-slave-count={wait_count}",
            "--rpl-semi-sync-master-wait-no-slave=ON",
            "--rpl-semi-sync-master-timeout=86400000",  # a day: never falls back during a run
        )
        self.master = Daemon("master", workdir / "master", [
            "--server-id=1", *self.source_settings, *REPLICA_SETTINGS, "--rpl-semi-sync-master-enabled=ON",
        ])
        self.proxies: list[FaultProxy] = []
        self.slaves: list[Daemon] = []
        self._slave_count = slaves
        self.sub_slave: Daemon | None = None
        self._want_sub_slave = sub_slave
        self._rng = rng
        self.killed: set[str] = set()  # daemons we stopped on purpose (not "died")

    def _mount(self, daemon: Daemon) -> None:
        if self.disk_size:
            self._mounts.enter_context(tmpfs(daemon.datadir, str(self.disk_size)))

    def start(self) -> None:
        self._mount(self.master)
        m = self.master.start()
        for sql in ("SET GLOBAL rpl_semi_sync_master_enabled = OFF",  # no slave yet to ack these
                    f"CREATE USER 'repl'@'%' IDENTIFIED BY '{REPL_PASSWORD}'",
                    "GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%'",
                    "CREATE DATABASE faults",
                    f"CREATE TABLE {TABLE} (seq INT AUTO_INCREMENT PRIMARY KEY, k VARCHAR(40) NOT NULL, "
                    "w INT NOT NULL, n INT NOT NULL)",
                    "SET GLOBAL rpl_semi_sync_master_enabled = ON"):
            m.query(sql)
        for i in range(1, self._slave_count + 1):
            proxy = FaultProxy(m.port, random.Random(self._rng.random()))
            slave = Daemon("slave", self.workdir / f"slave{i}", [
                f"--server-id={1 + i}", "--master-host=127.0.0.1", f"--master-port={proxy.port}",
                "--master-user=repl", f"--master-password={REPL_PASSWORD}",
                "--rpl-semi-sync-slave-enabled=ON", *REPLICA_SETTINGS,
                *(MIDDLE_SOURCE if i == 1 and self._want_sub_slave else self.source_settings),
            ])
            slave.role = f"slave{i}"  # its name from now on (the command line already says `slave`)
            self._mount(slave)
            self.proxies.append(proxy)
            self.slaves.append(slave.start())
        if self._want_sub_slave:
            self.start_sub_slave(self.slaves[0])
        for slave in self.downstream():
            wait_for(lambda s=slave: s.query(f"SELECT COUNT(*) FROM {TABLE}") is not None, HEAL_TIMEOUT,
                     message=f"{slave.role} to replicate the table")

    def start_sub_slave(self, middle: Daemon) -> None:
        """A semi-sync slave of `middle` (started with MIDDLE_SOURCE)."""
        sub = Daemon("slave", self.workdir / "subslave", [
            f"--server-id={self._slave_count + 2}", "--master-host=127.0.0.1", f"--master-port={middle.port}",
            "--master-user=repl", f"--master-password={REPL_PASSWORD}",
            "--rpl-semi-sync-slave-enabled=ON", "--master-connect-retry=0.3",
            "--master-heartbeat-period=0.5", "--slave-net-timeout=2",
        ])
        sub.role = "subslave"
        self._mount(sub)
        self.sub_slave = sub.start()

    def downstream(self) -> list[Daemon]:
        """Every slave: the master's, and the sub-slave if there is one."""
        return [*self.slaves, *([self.sub_slave] if self.sub_slave is not None else [])]

    def daemons(self) -> list[Daemon]:
        return [self.master, *self.downstream()]

    def died(self) -> list[str]:
        return [f"{d.role} (exit {d.proc.poll()}):\n{d.tail(15)}" for d in self.daemons()
                if d.role not in self.killed and d.proc is not None and d.proc.poll() is not None]

    def heal(self) -> None:
        for proxy in self.proxies:
            proxy.restore()
        for d in self.daemons():
            if d.proc is not None and d.proc.poll() is None:
                d.signal(signal.SIGCONT)
            elif d.role in self.killed:
                d.start()
            self.killed.discard(d.role)

    def set_role(self, daemon: Daemon, master: bool) -> None:
        """Rewrite `daemon`'s command line for its role from now on, so that a restart keeps it:
        a master is writable with semi-sync's master side on; a slave is read-only, acks, and
        replicates as its master.info says (CHANGE MASTER TO), not as a command line written for
        an earlier master."""
        role = (("--rpl-semi-sync-master-enabled=ON", "--rpl-semi-sync-slave-enabled=OFF", "--read-only=OFF") if master
                else ("--rpl-semi-sync-master-enabled=OFF", "--rpl-semi-sync-slave-enabled=ON", "--read-only=ON"))
        daemon.args = [a for a in daemon.args if not a.startswith(ROLE_OPTIONS)] + list(role)

    def replicate_through_link(self, slave: Daemon, use_gtid: str) -> None:
        """Point `slave` at the master through its FaultProxy again (the failover tool points it
        at the master's own port), by GTID."""
        proxy = self.proxies[self.slaves.index(slave)]
        for sql in ("STOP SLAVE",
                    f"CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = {proxy.port}, MASTER_USER = 'repl', "
                    f"MASTER_PASSWORD = '{REPL_PASSWORD}', MASTER_CONNECT_RETRY = 0.3, MASTER_HEARTBEAT_PERIOD = 0.5, "
                    f"MASTER_USE_GTID = {use_gtid}",
                    "START SLAVE"):
            slave.query(sql)

    def close(self) -> None:
        try:
            for d in self.daemons():
                try:
                    d.stop()
                except RuntimeError:
                    pass
                d.kill9()
            for proxy in self.proxies:
                proxy.close()
        finally:
            self._mounts.close()


# -- what each server holds -------------------------------------------------------------------
def table_rows(daemon: Daemon) -> list[tuple]:
    return [tuple(r) for r in daemon.query(f"SELECT seq, k, w, n FROM {TABLE} ORDER BY seq")]


def relay_log_txids(datadir: Path, basename: str = "relay-bin") -> Counter[str]:
    """Keys of every transaction committed (XID, or COMMIT) in the relay log, as key counts per
    transaction id. Read while the slave runs: a file the applier purged meanwhile is skipped
    (read the slave's table afterwards: what was purged had been applied)."""
    found: Counter[str] = Counter()
    for name in read_index(datadir, basename):
        pending: list[str] = []
        try:
            for _, raw in iter_events(datadir / name):
                kind = decode_header(raw).type_code
                if kind == EventType.QUERY_EVENT:
                    text_end = raw[:-4]  # before the CRC32 (the master's binlog_checksum)
                    if text_end.endswith(b"BEGIN"):
                        pending = []
                    elif text_end.endswith(b"COMMIT"):
                        found.update(pending)
                        pending = []
                    else:
                        pending += [m.decode() for m in KEY.findall(raw)]
                elif kind == EventType.XID_EVENT:
                    found.update(pending)
                    pending = []
        except (FileNotFoundError, BinlogFileError, ProtocolError):
            continue
    return found


def unreadable_logs(datadir: Path) -> list[str]:
    """Every binlog or relay log file listed in an index of `datadir` that `mariadb-binlog`
    cannot read end to end (its exit status and last words), as "file: why"."""
    failures = []
    for index in sorted(datadir.glob("*.index")):
        # with its GTID state check (on by default): a relay log file holds one master binlog
        # file's events at most, so its GTIDs follow that file's GTID_LIST
        for name in read_index(datadir, index.stem):
            done = subprocess.run(["mariadb-binlog", "--no-defaults", "--gtid-strict-mode", str(datadir / name)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if done.returncode != 0:
                failures.append(f"{datadir.name}/{name}: exit {done.returncode}: {done.stderr.strip()[-300:]}")
    return failures


def slave_copy(slave: Daemon, ledger: Ledger) -> set[str]:
    """Transaction ids durable on `slave`: complete in its relay log, or in its table."""
    rows = ledger.txns
    counts = relay_log_txids(slave.datadir)
    held = {t for t, c in counts.items() if t in rows and c >= rows[t].rows}
    applied = Counter(k.rsplit(".", 1)[0] for _, k, _, _ in table_rows(slave))
    return held | {t for t, c in applied.items() if t in rows and c >= rows[t].rows}


# -- the checker ------------------------------------------------------------------------------
@dataclass
class Violation:
    rule: str
    txids: list[str]
    detail: str = ""

    def __str__(self) -> str:
        shown = ", ".join(sorted(self.txids, key=txid_order)[:12])
        more = f" (+{len(self.txids) - 12} more)" if len(self.txids) > 12 else ""
        return f"[{self.rule}] {len(self.txids)} transaction(s) {shown}{more}" + (f": {self.detail}" if self.detail else "")


def txid_order(txid: str) -> tuple[int, ...]:
    return tuple(int(p) for p in txid[1:].split("."))


def check_on_master(acked: set[str], rows: list[tuple]) -> list[Violation]:
    """Rule (a): every acknowledged transaction is in the master's table."""
    present = {k.rsplit(".", 1)[0] for _, k, _, _ in rows}
    lost = acked - present
    return [Violation("acked-lost-on-master", sorted(lost))] if lost else []


def check_on_slaves(acked: set[str], copies: dict[str, set[str]], wait_count: int, when: str) -> list[Violation]:
    """Rule (b): every acknowledged transaction is durable on at least `wait_count` slaves."""
    short = sorted(t for t in acked if sum(t in held for held in copies.values()) < wait_count)
    if not short:
        return []
    where = "; ".join(f"{name} lacks {len(acked - held)}" for name, held in copies.items())
    return [Violation("acked-not-on-slaves", short, f"{when}: on fewer than {wait_count} slave(s) ({where})")]


def check_after_failover(acked: set[str], rows: list[tuple], name: str, when: str) -> list[Violation]:
    """Every transaction acknowledged until the master died is in the promoted slave's table:
    at the kill it was in the relay log of `wait_count` slaves, and the failover promotes the
    one holding every other's GTIDs once it has applied its relay log."""
    present = Counter(k.rsplit(".", 1)[0] for _, k, _, _ in rows)
    lost = acked - set(present)
    return [Violation("acked-lost-after-failover", sorted(lost), f"{when}: not on the new master {name}")] if lost else []


def gtid_state(text: str) -> dict[tuple[int, int], int]:
    """`@@gtid_binlog_state` or `@@gtid_current_pos` ("d-s-n,...") as {(domain, server_id): seq_no}."""
    state = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        domain, server_id, seq_no = (int(n) for n in part.split("-"))
        state[(domain, server_id)] = seq_no
    return state


def check_errant(states: dict[str, str], variable: str) -> list[Violation]:
    """No server holds a GTID another lacks (an errant transaction): every server's `variable`
    names, per domain and server_id, the same last seq_no (strict mode: seq_nos only grow, so a
    higher one means transactions the others never got)."""
    parsed = {name: gtid_state(text) for name, text in states.items()}
    found = []
    for name, state in parsed.items():
        for (domain, server_id), seq_no in sorted(state.items()):
            short = [f"{other} {f'{domain}-{server_id}-{theirs[(domain, server_id)]}' if (domain, server_id) in theirs else 'nothing'}"
                     for other, theirs in parsed.items() if theirs.get((domain, server_id), -1) < seq_no]
            if short:
                found.append(Violation("errant-gtid", [], f"{name}'s @@{variable} has {domain}-{server_id}-{seq_no}, "
                                       f"which {', '.join(short)} lack(s): " + "; ".join(f"{n}: {t or 'empty'}" for n, t in states.items())))
    return found


def check_table(ledger: Ledger, rows: list[tuple], name: str) -> list[Violation]:
    """Rules (d) on one server's table: no duplicate key, no phantom, no torn transaction."""
    keys = Counter(k for _, k, _, _ in rows)
    found: list[Violation] = []
    twice = sorted({k.rsplit(".", 1)[0] for k, c in keys.items() if c > 1})
    if twice:
        found.append(Violation("duplicate", twice, f"on {name}"))
    per_txn = Counter(k.rsplit(".", 1)[0] for k in keys)  # distinct keys per transaction
    txns = ledger.txns
    phantom = sorted(t for t in per_txn if t not in txns)
    if phantom:
        found.append(Violation("phantom", phantom, f"on {name}: keys no client inserted"))
    torn = sorted(t for t, c in per_txn.items() if t in txns and c != txns[t].rows)
    if torn:
        found.append(Violation("torn", torn, f"on {name}: part of the transaction's rows"))
    return found


def check_failed_absent(ledger: Ledger, rows: list[tuple], name: str) -> list[Violation]:
    """Rule (d): no transaction the server said failed is on `name`."""
    failed = {t.txid for t in ledger.txns.values() if t.outcome == "failed"}
    visible = sorted(failed & {k.rsplit(".", 1)[0] for _, k, _, _ in rows})
    return [Violation("failed-visible", visible, f"on {name}: the client was told it failed")] if visible else []


def check_identical(master_rows: list[tuple], slave_rows: list[tuple], name: str) -> list[Violation]:
    """Rule (c): after catch-up the slave's table is the master's, row for row."""
    if master_rows == slave_rows:
        return []
    m, s = Counter(master_rows), Counter(slave_rows)
    missing = sorted({r[1].rsplit(".", 1)[0] for r in m - s})
    extra = sorted({r[1].rsplit(".", 1)[0] for r in s - m})
    return [Violation("diverged", sorted(set(missing) | set(extra)),
                      f"{name}: {len(m - s)} master rows missing, {len(s - m)} rows not on the master")]


def compare_after_catch_up(ledger: Ledger, master_rows: list[tuple], slave: Daemon, when: str) -> list[Violation]:
    """Rules (c) and (d) on `slave`, once it has caught up with `master_rows` (or 90 s passed)."""
    try:
        wait_for(lambda: table_rows(slave) == master_rows, 90, 0.2, f"{slave.role} to catch up")
    except TimeoutError:
        pass
    rows = table_rows(slave)
    return (check_identical(master_rows, rows, f"{slave.role} {when}".strip()) + check_table(ledger, rows, slave.role)
            + check_failed_absent(ledger, rows, slave.role))


# -- the run ----------------------------------------------------------------------------------
@dataclass
class Report:
    seed: int
    faults: list[str] = field(default_factory=list)  # each fault as injected, e.g. ack-corrupt(slave2)[file]
    kinds: Counter[str] = field(default_factory=Counter)  # how many of each kind (FAULTS)
    violations: list[Violation] = field(default_factory=list)
    acked: int = 0
    in_doubt: int = 0
    failed: int = 0
    master_kills: int = 0
    failovers: int = 0
    truncations: int = 0  # old masters whose rejoin (--init-rpl-role SLAVE) cut an unacked tail
    samples: int = 0
    seconds: float = 0.0

    def summary(self) -> str:
        lines = [f"seed {self.seed}: {len(self.faults)} faults in {self.seconds:.0f} s, {self.acked} acknowledged "
                 f"transactions, {self.in_doubt} in doubt, {self.failed} failed, {self.failovers} failovers "
                 f"({self.truncations} rejoins cut an unacked binlog tail), "
                 f"(b) checked at {self.master_kills} master kills, "
                 f"{self.samples} samples of the master's semi-sync status",
                 "faults: " + ", ".join(self.faults)]
        lines += [f"VIOLATION {v}" for v in self.violations] or ["checker: every rule holds"]
        return "\n".join(lines)


class Run:
    def __init__(self, seed: int, workdir: Path, writers: int = 4, wait_count: int = 1,
                 log: Callable[[str], None] = print, kinds: list[str] | None = None) -> None:
        self.rng = random.Random(seed)
        self.report = Report(seed)
        self.ledger = Ledger()
        self.disk_faults = kinds is None or bool(set(kinds) & set(DISK_FAULTS))
        self.cluster = Cluster(workdir, self.rng, wait_count, disk_size=DISK_SIZE if self.disk_faults else 0,
                               sub_slave=kinds is None or ("middle-kill" in kinds and "failover" not in kinds))
        self.load = Load(self.cluster.master, self.ledger, writers, seed)
        self.log = log
        self._sampling = threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True, name="semisync-sampler")

    def violate(self, v: Violation) -> None:
        self.report.violations.append(v)
        self.log(f"VIOLATION {v}")

    # the master's semi-sync state, all along
    def _sample(self) -> None:
        while not self._sampling.wait(0.25):
            try:
                st = self.cluster.master.status("Rpl_semi_sync_master_%")
            except (pymysql.err.MySQLError, OSError):
                continue  # killed or restarting
            self.report.samples += 1
            if st.get("Rpl_semi_sync_master_status") != "ON" or st.get("Rpl_semi_sync_master_no_tx") != "0":
                self.violate(Violation("semisync-off", [], f"master status {st.get('Rpl_semi_sync_master_status')}, "
                                       f"no_tx {st.get('Rpl_semi_sync_master_no_tx')}: guarantee (b) not in force"))
                return

    def progress(self, what: str) -> bool:
        start = self.ledger.count("ok")
        try:
            wait_for(lambda: self.ledger.count("ok") > start, HEAL_TIMEOUT, 0.05, what)
            return True
        except TimeoutError as e:
            pending = [t for t in self.ledger.txns.values() if t.outcome == "pending"]
            self.violate(Violation("no-progress", [t.txid for t in pending], f"{e}\n{self.cluster.master.tail(20)}"))
            return False

    def kill_master(self, when: str) -> set[str]:
        """Kill -9 the master and check (b) while it is dead; the transactions acknowledged."""
        c = self.cluster
        c.killed.add(c.master.role)
        c.master.kill9()
        self.report.master_kills += 1
        wait_for(self.load.idle, HEAL_TIMEOUT, 0.02, "every writer to see the master gone")
        acked = self.ledger.acked()
        copies = {s.role: slave_copy(s, self.ledger) for s in c.slaves}
        for v in check_on_slaves(acked, copies, c.wait_count, when):
            self.violate(v)
        return acked

    def master_lost(self, when: str) -> None:
        """Kill -9 the master; check (b) while it is dead, restart it, check (a)."""
        c = self.cluster
        acked = self.kill_master(when)
        c.master.start()
        c.killed.discard(c.master.role)
        for v in check_on_master(acked, table_rows(c.master)):
            v.detail = f"after the restart following {when}"
            self.violate(v)

    def failover_tool(self, *servers: Daemon) -> subprocess.CompletedProcess[str]:
        """`semisync failover --servers` these, its output in the run's log."""
        done = subprocess.run([sys.executable, "-m", "cli.main", "failover",
                               "--servers", ",".join(f"127.0.0.1:{d.port}" for d in servers),
                               "--replication-user", "repl", "--replication-password", REPL_PASSWORD],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
        self.log("\n".join(f"  | {line}" for line in (done.stdout + done.stderr).splitlines()))
        return done

    def failover(self, when: str) -> None:
        """The master dies and a slave takes over: kill -9 it, check (b), run `semisync failover`,
        check that every acknowledged transaction is on the promoted slave, move the writers and
        the links to it, restart the old master with --init-rpl-role SLAVE and rejoin it by GTID
        (a second `semisync failover` run demotes it by current_pos), every slave through its
        link. The daemons keep their names: the one called "master" may now be a slave."""
        c = self.cluster
        old = c.master
        acked = self.kill_master(when)
        # the tool refuses while a slave's IO thread is still connected (the master may be alive)
        try:
            wait_for(lambda: all(slave_status(s.port).get("Slave_IO_Running") != "Yes" for s in c.slaves),
                     HEAL_TIMEOUT, 0.1, "the slaves' IO threads to see the master gone")
            # in a random order: among slaves that hold the same GTIDs the tool takes the first
            done = self.failover_tool(old, *self.rng.sample(c.slaves, len(c.slaves)))
            promoted = [s for s in c.slaves if not s.query("SHOW ALL SLAVES STATUS")]
            failed = "" if done.returncode == 0 and len(promoted) == 1 else \
                f"exit {done.returncode}, {len(promoted)} slave(s) promoted:\n{done.stdout}{done.stderr}"
        except (TimeoutError, subprocess.TimeoutExpired) as e:
            promoted, failed = [], str(e)
        if failed:
            self.violate(Violation("failover-failed", [], f"{when}: {failed}"))
            if not promoted:  # nothing changed: the old master comes back as it was
                old.start()
                c.killed.discard(old.role)
            return
        new = promoted[0]
        self.report.failovers += 1
        self.violate_all(check_after_failover(acked, table_rows(new), new.role, when))
        i = c.slaves.index(new)
        c.set_role(new, master=True)
        c.set_role(old, master=False)
        c.master, c.slaves[i] = new, old
        self.load.master = new
        for proxy in c.proxies:
            proxy.target_port = new.port
        logged = old.log.stat().st_size
        old.args.append("--init-rpl-role=SLAVE")
        try:
            old.start()
        finally:
            old.args.remove("--init-rpl-role=SLAVE")
        c.killed.discard(old.role)
        with open(old.log, "rb") as f:
            f.seek(logged)
            cut = re.search(r"truncated binlog file.*starting from GTID \S+", f.read().decode(errors="replace"))
        self.report.truncations += bool(cut)
        self.log(f"  {new.role} promoted; {old.role} restarted as a slave"
                 + (f" ({cut.group(0)})" if cut else " (no binlog tail to truncate)"))
        done = self.failover_tool(old, *(s for s in c.slaves if s is not old), new)
        if done.returncode != 0 or not old.query("SHOW ALL SLAVES STATUS"):
            self.violate(Violation("failover-failed", [], f"{when}: the old master {old.role} was not rejoined "
                                   f"(exit {done.returncode}):\n{done.stdout}{done.stderr}"))
            return
        for s in c.slaves:
            c.replicate_through_link(s, "current_pos" if s is old else "slave_pos")

    def inject(self, kind: str) -> None:
        c, rng = self.cluster, self.rng
        i = rng.randrange(len(c.slaves))
        slave, proxy = c.slaves[i], c.proxies[i]
        hold = rng.uniform(0.5, 2.5)
        label = kind if kind.startswith("master") or kind == "failover" else f"{kind}({slave.role})"
        self.log(f"{time.strftime('%H:%M:%S')} fault {label} for {hold:.1f}s, {self.ledger.count('ok')} acked so far")
        time.sleep(hold)  # some load before the fault too
        if kind == "master-kill":
            # the master dies alone, or while one slave lags behind a cut link (only the other
            # can have the last acked commits), or while every slave is cut off (nothing may
            # be acknowledged meanwhile: the commits wait for an ack that cannot come)
            cut = rng.choice(([], [proxy], c.proxies))
            if cut:
                label += f"+link-cut({slave.role if len(cut) == 1 else 'all'})"
                for each in cut:
                    each.partition()
                time.sleep(hold)
            self.master_lost(f"fault {len(self.report.faults) + 1} ({label})")
        elif kind == "failover":
            self.failover(f"fault {len(self.report.faults) + 1} ({label})")
        elif kind in ("slave-kill", "middle-kill"):
            if kind == "middle-kill":  # the first slave: the sub-slave's master
                slave = c.slaves[0]
                label = f"{kind}({slave.role})"
            c.killed.add(slave.role)
            slave.kill9()
            time.sleep(hold)
        elif kind == "slave-stop":
            slave.signal(signal.SIGSTOP)
            time.sleep(hold)
        elif kind == "master-stop":
            c.master.signal(signal.SIGSTOP)
            time.sleep(hold + 2)  # past slave_net_timeout: the slaves give up on it and reconnect
        elif kind == "event-corrupt":
            # As mysqld: the IO thread stops with 1743 (checksum failed while reading from network)
            # and the DBA starts it again; or the slave reconnects by itself. Either way it never
            # acks, relays or applies the bad event.
            connections = proxy.connections
            proxy.corrupt_next()

            def refused() -> str | None:
                if proxy.connections > connections:
                    return "reconnected"
                st = slave_status(slave.port)
                return "stopped" if st.get("Slave_IO_Running") == "No" else None

            try:
                if wait_for(refused, 10, 0.05, "the slave to drop the connection") == "stopped":
                    slave.query("START SLAVE")
            except TimeoutError:
                self.violate(Violation("corrupt-event-accepted", [], f"{slave.role} went on with the connection "
                                       "that delivered an event with a bad byte"))
        elif kind == "link-cut":
            proxy.partition()
            time.sleep(hold + 2)  # past slave_net_timeout: the slave notices
        elif kind == "link-slow":
            proxy.slow(rng.uniform(0.02, 0.2))
            time.sleep(hold * 2)
        elif kind == "ack-corrupt":
            how = rng.choice(ACK_DAMAGE)
            label += f"[{how}]"
            seen = len(proxy.corrupted)
            proxy.corrupt_next_ack(how)
            wait_for(lambda: len(proxy.corrupted) > seen, HEAL_TIMEOUT, 0.02, "an ack to corrupt")
            upstream = proxy.corrupted[-1][0]
            try:
                wait_for(lambda: upstream in proxy.closed_by_master, 10, 0.02, "the master to drop the connection")
            except TimeoutError:
                self.violate(Violation("corrupt-ack-accepted", [], f"{slave.role}: ack with a bad {how} "
                                       f"{proxy.corrupted[-1][2].hex()} did not make the master drop the connection"))
        elif kind == "master-disk-full":
            # binlog_error_action, per fault: an engine commit failing after the binlog write
            # stops the master (ABORT_SERVER: we restart it, as its supervisor would) or is
            # replayed from the binlog (IGNORE_ERROR: it recovers by itself)
            action = rng.choice(BINLOG_ERROR_ACTIONS)
            label += f"[{action}]"
            c.master.query(f"SET GLOBAL binlog_error_action = '{action}'")
            self.fill_and_free(c.master, hold)
            if c.master.proc is not None and c.master.proc.poll() is not None:
                if action == "ABORT_SERVER" and "binlog_error_action is ABORT_SERVER" in c.master.tail(60):
                    label += "+aborted"
                    self.master_lost(f"fault {len(self.report.faults) + 1} ({label})")
        elif kind == "slave-disk-full":
            self.fill_and_free(slave, hold)
            self.restart_stopped_sql_thread(slave)
        self.report.faults.append(label)
        self.report.kinds[kind] += 1
        c.heal()
        for died in c.died():
            self.violate(Violation("daemon-died", [], died))

    def fill_and_free(self, daemon: Daemon, hold: float) -> None:
        filler = fill(daemon.datadir, FILLER)
        time.sleep(hold + 1)  # the writers meet the full disk
        self.log(f"  {daemon.role}: {filler.stat().st_size >> 20} MiB filler; freed")
        filler.unlink()
        # the daemon notices: a commit failing as the space returned has failed by now, and a
        # master stopping for binlog_error_action=ABORT_SERVER has ended
        time.sleep(0.5)

    def restart_stopped_sql_thread(self, slave: Daemon) -> None:
        """After a full disk: the IO thread resumes by itself; a SQL thread that a failed engine
        commit stopped is started again, as the DBA would (MariaDB's stops on a full table)."""
        st = slave_status(slave.port)
        if st.get("Slave_SQL_Running") == "No" and any(e in str(st.get("Last_SQL_Error")) for e in DISK_FULL_ERRORS):
            self.log(f"  {slave.role}: SQL thread stopped ({st.get('Last_SQL_Errno')}: "
                     f"{str(st.get('Last_SQL_Error'))[:120]}); START SLAVE")
            slave.query("START SLAVE")

    def run(self, seconds: float, kinds: list[str] | None = None) -> Report:
        started = time.monotonic()
        c = self.cluster
        try:
            c.start()
            self.load.start()
            self._sampler.start()
            # every kind once, in a random order, then random kinds until the time is up
            todo = list(kinds or FAULTS)
            self.rng.shuffle(todo)
            while not self.report.violations:
                kind = todo.pop() if todo else self.rng.choice(kinds or FAULTS)
                self.inject(kind)
                if not self.progress(f"commits after {self.report.faults[-1]}"):
                    break
                if not todo and time.monotonic() - started > seconds:
                    break
            self.finish()
        finally:
            self._sampling.set()
            self.load.stop()
            try:
                for d in c.daemons():
                    d.stop()
                unreadable = [bad for d in c.daemons() for bad in unreadable_logs(d.datadir)]
                if unreadable:
                    self.violate(Violation("log-unreadable", [], "\n".join(unreadable)))
            finally:
                c.close()
            self.report.seconds = time.monotonic() - started
            self.report.acked = self.ledger.count("ok")
            self.report.in_doubt = self.ledger.count("error")
            self.report.failed = self.ledger.count("failed")
        return self.report

    def finish(self) -> None:
        """Heal, stop the load, lose the master once more (b, a), then catch up and compare (c, d)."""
        c = self.cluster
        c.heal()
        self.load.stop()
        self._sampling.set()
        self.master_lost("the end of the run")
        master_rows = table_rows(c.master)
        self.violate_all(check_table(self.ledger, master_rows, "master") + check_failed_absent(self.ledger, master_rows, "master"))
        for slave in c.downstream():  # the sub-slave last: it follows the middle slave
            self.restart_stopped_sql_thread(slave)
            self.violate_all(compare_after_catch_up(self.ledger, master_rows, slave, ""))
        for variable in ("gtid_binlog_state", "gtid_current_pos"):
            self.violate_all(check_errant(self.gtids(variable), variable))

    def gtids(self, variable: str) -> dict[str, str]:
        """Every server's `variable` once they agree (the last GTIDs may still be on their way to
        the sub-slave), or after 60 s."""
        def read() -> dict[str, str]:
            return {d.role: str(d.query(f"SELECT @@{variable}")[0][0] or "") for d in self.cluster.daemons()}

        def agreed() -> dict[str, str] | None:
            states = read()
            return states if len(set(states.values())) == 1 else None

        try:
            return wait_for(agreed, 60, 0.2, f"every server's @@{variable} to agree")
        except TimeoutError:
            return read()

    def violate_all(self, found: list[Violation]) -> None:
        for v in found:
            self.violate(v)


DISK_FAULTS = ["master-disk-full", "slave-disk-full"]  # need root (a tmpfs per datadir)
BINLOG_ERROR_ACTIONS = ("ABORT_SERVER", "IGNORE_ERROR")
FAULTS = ["master-kill", "master-stop", "slave-kill", "middle-kill", "slave-stop", "link-cut", "link-slow",
          "ack-corrupt", "event-corrupt", *DISK_FAULTS]
# Asked for by name (--faults), and not with middle-kill: a cluster with failovers has no
# sub-slave (the tool repoints every server it is given at the promoted one)
FAILOVER = "failover"
KINDS = [*FAULTS, FAILOVER]


def run(seed: int, seconds: float, workdir: Path | None = None, writers: int = 4, wait_count: int = 1,
        kinds: list[str] | None = None, log: Callable[[str], None] = print) -> Report:
    """One seeded fault loop of at least `seconds` (every fault kind at least once)."""
    own = workdir is None
    if workdir is None:
        workdir = Path(tempfile.mkdtemp(prefix="semisync-faults-"))
    log(f"fault loop: seed {seed}, {seconds:.0f} s, {writers} writers, wait for {wait_count} slave(s), in {workdir}")
    try:
        return Run(seed, workdir, writers, wait_count, log, kinds).run(seconds, kinds)
    finally:
        if own:
            shutil.rmtree(workdir, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.support.faults", description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=10.0)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--writers", type=int, default=4)
    p.add_argument("--wait-for-slave-count", type=int, default=1, choices=(1, 2))
    p.add_argument("--workdir", type=Path, default=None, help="keep the datadirs and logs here")
    p.add_argument("--faults", type=lambda v: v.split(","), default=None,
                   help=f"only these fault kinds, comma-separated, a kind named twice chosen twice as often "
                        f"(default: all of {','.join(FAULTS)}; {FAILOVER} only when named)")
    args = p.parse_args(argv)
    if args.faults and set(args.faults) - set(KINDS):
        p.error(f"unknown fault kind(s) {','.join(sorted(set(args.faults) - set(KINDS)))}; known: {','.join(KINDS)}")
    if args.faults and {FAILOVER, "middle-kill"} <= set(args.faults):
        p.error(f"{FAILOVER} and middle-kill do not go together (a cluster with failovers has no sub-slave)")
    if args.faults is None and os.geteuid() != 0:
        args.faults = [k for k in FAULTS if k not in DISK_FAULTS]
        print(f"not root: no {', '.join(DISK_FAULTS)} (they mount a tmpfs)")
    seed = args.seed if args.seed is not None else random.randrange(1 << 32)
    report = run(seed, args.minutes * 60, args.workdir, args.writers, args.wait_for_slave_count, args.faults)
    print(report.summary())
    return 1 if report.violations else 0


if __name__ == "__main__":
    sys.exit(main())
