"""Full disks for tests: a small tmpfs mounted under a daemon's datadir, filled to the last byte
and freed while the daemon runs. Mounting needs root (CI runs the tests as root); `tmpfs()`
unmounts in its teardown whatever happened, after the caller stopped what uses the mount."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def require_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")


@contextmanager
def tmpfs(path: Path, size: str) -> Iterator[Path]:
    """`path` (created if missing) is a tmpfs of `size` (e.g. "32m") inside the block."""
    require_root()
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(path)],
                   check=True, capture_output=True)
    try:
        yield path
    finally:
        for _ in range(50):
            if subprocess.run(["umount", str(path)], capture_output=True).returncode == 0:
                break
            time.sleep(0.1)  # a process that used it may still be exiting
        else:
            subprocess.run(["umount", "-l", str(path)], capture_output=True)


def fill(directory: Path, name: str = "filler") -> Path:
    """Fill the file system of `directory` to its last byte with one file; returns the file
    (unlink it to free the space)."""
    filler = directory / name
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for size in (1 << 20, 1 << 12, 1):
            block = bytes(size)
            while True:
                try:
                    os.write(fd, block)
                except OSError as exc:
                    if exc.errno != errno.ENOSPC:
                        raise
                    break
    finally:
        os.close(fd)
    return filler


def move_database(datadir: Path, name: str, disk: Path) -> None:
    """The engine's file of database `name` (and its WAL) moves from `datadir` to `disk`, a
    symlink left in its place (SQLite follows it, and puts the WAL next to the real file)."""
    for suffix in ("", "-wal", "-shm"):
        if (datadir / f"{name}.sqlite{suffix}").exists():
            shutil.move(datadir / f"{name}.sqlite{suffix}", disk / f"{name}.sqlite{suffix}")
    (datadir / f"{name}.sqlite").symlink_to(disk / f"{name}.sqlite")
