"""One of our daemons with the steps of its commit path marked in time: the launcher of
bench/commit_timeline.py.

    python /path/to/bench/timeline_boot.py LOG_DIR master|slave [daemon options ...]
    (cwd: a source tree of ours, as for `python -m cli.main`; that tree's code runs)

Before it runs `cli.main` as `python -m cli.main` would, it wraps the methods of MARKS in the
tree's modules: each wrapped call appends `<mark> <CLOCK_MONOTONIC ns>` to
LOG_DIR/<role>-<pid>.log with one write(2), unbuffered (a daemon that is killed loses no mark).
The clock is the system's monotonic one, so the marks of the three processes compare. A method a
tree does not have is left alone (an older tree marks less). A mark costs a few µs: the tool
shows where a commit's time goes, not what it costs unmarked.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import inspect
import os
import runpy
import sys
import time

# (module, class, method, mark when called, mark when it returned). A coroutine method marks
# around its await; a plain method that returns a future marks its end when the future is done.
MARKS: tuple[tuple[str, str, str, str | None, str | None], ...] = (
    # the master: a group from its leader to its wakeups
    ("master.commit", "GroupCommit", "_run_group", "group", None),
    ("master.commit", "GroupCommit", "run_io", "io0", "io1"),
    ("binlog.writer", "BinlogWriter", "write_group", "w0", "w1"),  # the binlog's write + fsync
    ("master.commit", "GroupCommit", "_write_group", "gw0", None),  # ... or, a held group's,
    ("binlog.syncer", "NativeSyncer", "fdatasync", "fd0", "fd1"),  # fdatasync on the syncer
    ("master.binlog_end", "BinlogEnd", "publish", "pub", None),
    ("master.dump", "DumpSession", "_send_batch", "send", None),
    ("master.ack_receiver", "AckReceiver", "feed", "ackrx", None),
    ("semisync.master_plugin", "SemiSyncMasterPlugin", "after_sync", None, "acked"),
    ("master.commit", "GroupCommit", "_wake", "wake", None),
    # a slave: what it read, the relay log's fsync, the ack, the applier's batches
    ("slave.io_task", "_Link", "read", None, "rx"),
    ("slave.io_task", "IoTask", "_sync_relay", "rs0", "rs1"),
    ("slave.relay_log", "RelayLog", "sync_then_send", "rs0", "rs1"),  # ... the ack sent by its thread
    ("protocol.connection", "ClientConnection", "ack", "ack", None),
    ("slave.io_task", "IoTask", "_received", "rc", None),  # ... or a receiver thread's batch, counted
    ("slave.applier", "Applier", "_flush", "ap0", "ap1"),
)


def install(log_dir: str, role: str) -> None:
    fd = os.open(os.path.join(log_dir, f"{role}-{os.getpid()}.log"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    now, write = time.monotonic_ns, os.write

    def mark(name: bytes) -> None:
        write(fd, b"%s %d\n" % (name, now()))

    for module, cls_name, method, before, after in MARKS:
        try:
            cls = getattr(importlib.import_module(module), cls_name)
            raw = inspect.getattr_static(cls, method)
        except (ImportError, AttributeError):
            continue
        setattr(cls, method, wrap_attribute(raw, mark, before and before.encode(), after and after.encode()))


def wrap_attribute(raw, mark, before: bytes | None, after: bytes | None):
    """`raw` (a class attribute as stored: a function, a staticmethod or a classmethod) marked,
    stored the same way."""
    for kind in (staticmethod, classmethod):
        if isinstance(raw, kind):
            return kind(_wrapped(raw.__func__, mark, before, after))
    return _wrapped(raw, mark, before, after)


def _wrapped(fn, mark, before: bytes | None, after: bytes | None):
    if inspect.iscoroutinefunction(fn):
        async def marked(*args, **kwargs):
            if before:
                mark(before)
            try:
                return await fn(*args, **kwargs)
            finally:
                if after:
                    mark(after)
    else:
        def marked(*args, **kwargs):
            if before:
                mark(before)
            result = fn(*args, **kwargs)
            if after:
                if isinstance(result, asyncio.Future):
                    result.add_done_callback(lambda _done: mark(after))
                else:
                    mark(after)
            return result
    return functools.wraps(fn)(marked)


def main() -> None:
    log_dir = sys.argv.pop(1)
    sys.path[0] = os.getcwd()  # the tree's packages, as `python -m` from it (not bench/)
    install(log_dir, sys.argv[1])
    runpy.run_module("cli.main", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
