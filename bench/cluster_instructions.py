"""Each process's instructions per transaction in our semi-sync cluster, counted by valgrind's
callgrind: what `bench/sysbench_semisync.py` measures as CPU time, in a unit this machine's load
and wakeups do not move.

    python bench/cluster_instructions.py [--workload oltp_insert] [--threads 4] [--events 400]
                                         [--reads 2000] [--tree NAME=PATH ...]

For each tree in turn: a master and two slaves as sysbench_semisync.py's `ours` starts them
(semi-sync AFTER_SYNC, one ack, sync_binlog=1, slaves acking after their fsync), each under
callgrind; sysbench prepares its table and warms up; every process's count is zeroed
(`callgrind_control --zero`), sysbench runs `--events` transactions, the slaves catch up, and
every process's count is dumped. Printed: instructions per transaction of the master and of
each slave, and the transactions per binlog group (a group's fixed work is shared by its
transactions, so compare trees at equal group sizes). A process under callgrind runs some 50
times slower: the cluster commits a few transactions a second, semi-sync stays on (its timeout
is raised to 60 s), and a run of 400 events takes minutes. Not a test; counts, not waits (an
fsync's time, a wakeup's latency).

Reads on a slave: `--workload slave_point_select` runs sysbench_semisync.py's workload of that
name (`oltp_point_select`, `--reads` events, against the first slave while the master takes
`--events` `oltp_insert` transactions, both with `--threads`) and prints, besides the above per
(read + insert), the read slave's instructions per read with the other slave's count taken out
(the same inserts applied, the same idle work on timers, no reads); `slave_point_select_idle`
runs the reads alone (the master idle): a read's own cost, without the applier beside it. Under
callgrind a run lasts long enough that a process's idle work on timers is a visible part of the
counts: the other slave's count is what that part weighs.

`--isolation LEVEL` sets the master's global transaction_isolation before sysbench prepares
(the server's default is REPEATABLE-READ, older trees' READ-COMMITTED): under REPEATABLE-READ
`oltp_read_write`'s reads read in each transaction's snapshot.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from sysbench_semisync import SLAVE_READS, Cluster, Sysbench, parse_tree  # noqa: E402

from tests.support.daemons import Daemon, wait_for  # noqa: E402

TIMEOUT = 1800.0  # a daemon's start, semi-sync's readiness, a catch-up: all slowed by callgrind (a start took 10-20 min at load 20)
IDLE_READS = SLAVE_READS + "_idle"  # the reads on the first slave with the master idle


def _under_callgrind(daemon: Daemon, out: Path) -> Daemon:
    """`daemon` started as a callgrind process (valgrind runs in the daemon's own pid)."""
    daemon.args = [shutil.which("valgrind") or "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                   os.path.realpath(sys.executable), *daemon.args[1:]]
    return daemon


def start_counted(code: Path, tmp: Path) -> tuple[Cluster, dict[int, Path]]:
    """The cluster of sysbench_semisync.start_ours, each process under callgrind; its dump files."""
    dumps: dict[int, Path] = {}

    def daemon(role: str, name: str, args: list[str]) -> Daemon:
        out = tmp / f"{name}.callgrind"
        d = _under_callgrind(Daemon(role, tmp / name, args, code=code), out)
        try:
            d.start(timeout=TIMEOUT)
        except BaseException:  # not serving in time (a loaded machine): no process outlives the run
            d.stop()
            raise
        assert d.proc is not None
        dumps[d.proc.pid] = out
        return d

    master = daemon("master", "master", [
        "--server-id=1", "--rpl-semi-sync-master-enabled=ON", "--rpl-semi-sync-master-wait-point=AFTER_SYNC",
        "--rpl-semi-sync-master-wait-for-slave-count=1", "--sync-binlog=1", "--rpl-semi-sync-master-timeout=60000",
    ])
    cluster = Cluster("ours", master)
    try:
        for server_id in (2, 3):
            cluster.slaves.append(daemon("slave", f"slave{server_id}", [
                f"--server-id={server_id}", "--master-host=127.0.0.1", f"--master-port={master.port}",
                "--master-user=root", "--rpl-semi-sync-slave-enabled=ON", "--sync-relay-log=1",
            ]))
        cluster.wait_semisync_ready(TIMEOUT)
    except BaseException:
        cluster.stop()
        raise
    return cluster, dumps


def _callgrind_control(option: str, pid: int) -> None:
    subprocess.run([shutil.which("callgrind_control") or "callgrind_control", option, str(pid)],
                   check=True, capture_output=True, text=True)


def _dumped(out: Path, since: float) -> int:
    """The instruction total of the newest dump of `out` (callgrind adds .1, .2 ... to a requested dump)."""
    def newest() -> Path | None:
        found = [p for p in out.parent.glob(out.name + ".*") if p.stat().st_mtime >= since]
        return max(found, key=lambda p: p.stat().st_mtime) if found else None

    wait_for(lambda: newest() is not None, 60, message=f"a callgrind dump of {out.name}")
    path = newest()
    assert path is not None
    wait_for(lambda: re.search(r"^totals: \d+", path.read_text(), re.MULTILINE) is not None, 60,
             message=f"the totals line of {path.name}")
    return int(re.search(r"^totals: (\d+)", path.read_text(), re.MULTILINE).group(1))  # type: ignore[union-attr]


def _status(cluster: Cluster, name: str) -> int:
    return int(cluster.master.status(name).get(name, 0))


class _Probes:
    """One connection to each process, kept open across the counted run, for the catch-up
    check inside it (`Cluster.caught_up` logs in anew for each query, and PyMySQL, 2.2 here,
    asks for TLS whenever the server offers it: a TLS handshake, some 3.7 M instructions in
    libcrypto and libssl, counted in every process once per check). Plain TCP, as sysbench's
    own connections."""

    def __init__(self, cluster: Cluster):
        self.master = cluster.master.connect(ssl_disabled=True)
        self.slaves = [slave.connect(ssl_disabled=True) for slave in cluster.slaves]

    @staticmethod
    def _row(conn: Any, sql: str) -> dict[str, Any]:
        with conn.cursor() as cur:
            cur.execute(sql)
            row = cur.fetchone()
            return dict(zip([d[0] for d in cur.description], row, strict=True)) if row else {}

    def caught_up(self) -> bool:
        """`Cluster.caught_up` through the kept connections."""
        file, pos = list(self._row(self.master, "SHOW MASTER STATUS").values())[:2]
        at = (file, str(pos))
        return all((st.get("Relay_Master_Log_File"), str(st.get("Exec_Master_Log_Pos"))) == at
                   for st in (self._row(slave, "SHOW SLAVE STATUS") for slave in self.slaves))

    def close(self) -> None:
        for conn in (self.master, *self.slaves):
            conn.close()


def _sysbench(bench: Sysbench, test: str, port: int, threads: int, events: int) -> subprocess.Popen[str]:
    return subprocess.Popen(bench.args(test, port, threads) + [f"--events={events}", "run"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _done(proc: subprocess.Popen[str], what: str) -> int:
    """The transactions a sysbench run completed (it must succeed)."""
    out, err = proc.communicate(timeout=4 * TIMEOUT)
    if proc.returncode != 0:
        raise SystemExit(f"sysbench {what} failed:\n{out[-2000:]}{err[-2000:]}")
    return int(re.search(r"transactions:\s+(\d+)", out).group(1))  # type: ignore[union-attr]


def measure(name: str, code: Path, workload: str, threads: int, events: int, reads: int,
            keep: Path | None = None, isolation: str | None = None) -> None:
    read_workload = workload in (SLAVE_READS, IDLE_READS)
    with tempfile.TemporaryDirectory() as tmp:
        cluster, dumps = start_counted(code, Path(tmp))
        try:
            bench = Sysbench(table_size=1000, ps_mode="auto", seconds=0)
            port = cluster.master.port
            reader = cluster.slaves[0].port
            writes = "oltp_insert" if read_workload else workload
            cluster.master.query("CREATE DATABASE sbtest")
            if isolation is not None:
                cluster.master.query(f"SET GLOBAL transaction_isolation = '{isolation}'")
            bench.checked(writes, port, "prepare", "ours")
            _done(_sysbench(bench, writes, port, threads, 50), "warm-up")
            cluster.wait_caught_up()
            if read_workload:
                _done(_sysbench(bench, "oltp_point_select", reader, threads, 200), "read warm-up")
            groups0, yes0 = _status(cluster, "Binlog_group_commits"), _status(cluster, "Rpl_semi_sync_master_yes_tx")
            probes = _Probes(cluster)  # opened before the zero: no login inside the counts
            for pid in dumps:
                _callgrind_control("--zero", pid)
            runs = [] if workload == IDLE_READS else [_sysbench(bench, writes, port, threads, events)]
            if read_workload:
                runs.append(_sysbench(bench, "oltp_point_select", reader, threads, reads))
            done = [_done(run, "run") for run in runs]
            wait_for(probes.caught_up, TIMEOUT, interval=1.0, message="slaves to apply the master's binlog")
            since = time.time() - 1
            for pid in dumps:
                _callgrind_control("--dump", pid)
            counts = [_dumped(dumps[pid], since) for pid in cluster.pids()]
            if keep is not None:  # for callgrind_annotate: master.callgrind.N, slave2..., slave3...
                keep.mkdir(parents=True, exist_ok=True)
                for out in dumps.values():
                    for dump in out.parent.glob(out.name + ".*"):
                        shutil.copy(dump, keep / f"{name}-{dump.name}")
            probes.close()
            groups = _status(cluster, "Binlog_group_commits") - groups0
            yes = _status(cluster, "Rpl_semi_sync_master_yes_tx") - yes0
        finally:
            cluster.stop()
    total = sum(done)
    per = " / ".join(f"{c / total:,.0f}" for c in counts)
    inserts = 0 if workload == IDLE_READS else done[0]
    line = (f"{name}: {workload} {threads} thread(s), {total} transactions ({yes} semi-sync acked, "
            f"{inserts / groups if groups else float('nan'):.1f} per group): instructions per transaction "
            f"master / slave / slave {per}")
    if read_workload:
        read_count = done[-1]
        line += (f"; {read_count} reads, {inserts} inserts: the read slave's instructions per read "
                 f"{(counts[1] - counts[2]) / read_count:,.0f} (the other slave's count taken out)")
    print(line, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", default="oltp_insert")
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--events", type=int, default=400)
    parser.add_argument("--reads", type=int, default=2000,
                        help=f"point selects on the first slave ({SLAVE_READS}, {IDLE_READS})")
    parser.add_argument("--tree", action="append", default=[], metavar="NAME=PATH",
                        help="a source tree with its C parts built (repeatable; default: this one)")
    parser.add_argument("--keep-dumps", type=Path, metavar="DIR",
                        help="copy each process's callgrind dumps here (for callgrind_annotate)")
    parser.add_argument("--isolation", choices=("READ-COMMITTED", "REPEATABLE-READ"),
                        help="the master's global transaction_isolation")
    args = parser.parse_args()
    trees = [parse_tree(spec) for spec in args.tree] or [("this", Path(__file__).resolve().parents[1])]
    for name, code in trees:
        measure(name, code, args.workload, args.threads, args.events, args.reads, args.keep_dumps, args.isolation)


if __name__ == "__main__":
    main()
