"""The `.index` file of a binlog (or relay log) sequence: one file name per line, in order.

MySQL writes `./mysql-bin.000001` (relative to the datadir); MariaDB with an absolute --log-bin
writes absolute paths. We read every form and return bare file names; we write `./NAME` lines,
as MySQL does (the relay log's index: bare `NAME` lines, as it always has: `prefix=""`). Rewrites are atomic (temporary file, fsync, rename, fsync of the directory), so a
crash leaves either the old or the new index, never a half-written one; a rewrite that fails
before the rename (a full disk) leaves the old index and removes its temporary file.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from protocol.position import file_sequence


def index_path(directory: Path, basename: str) -> Path:
    return Path(directory) / f"{basename}.index"


def read_index(directory: Path, basename: str) -> list[str]:
    """The file names listed in `basename.index` (bare names, index order); [] if there is none."""
    path = index_path(directory, basename)
    try:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
    except FileNotFoundError:
        return []
    return [PurePosixPath(line.strip()).name for line in text.splitlines() if line.strip()]


def write_index(directory: Path, basename: str, names: list[str], prefix: str = "./") -> None:
    """Atomically replace `basename.index` with `names` (written as `./NAME`, or `prefix` + NAME,
    one per line)."""
    path = index_path(directory, basename)
    tmp = path.with_name(path.name + ".tmp")
    data = "".join(f"{prefix}{name}\n" for name in names).encode("utf-8", "surrogateescape")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError:
        try:  # a full disk: the old index stays, and no half-written temporary file either
            tmp.unlink()
        except OSError:
            pass
        raise
    fsync_directory(Path(directory))


def fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def file_name(basename: str, sequence: int) -> str:
    """`basename.000123` (at least six digits, as MySQL)."""
    return f"{basename}.{sequence:06d}"


def next_file_name(name: str) -> str:
    base, seq = file_sequence(name)
    return file_name(base, seq + 1)
