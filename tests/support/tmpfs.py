"""A small tmpfs under a daemon's datadir, filled and freed on demand: a full disk for real.

Needs root (mount). `fill()` takes every free byte with a filler file (posix_fallocate, in
shrinking chunks until ENOSPC); `free()` deletes it. `unmount()` is safe to call more than once
and falls back to a lazy unmount when a process still holds a file there; callers put it in a
`finally` (or fixture teardown) so that a failed test leaves no mount behind.
"""

from __future__ import annotations

import errno
import os
import subprocess
from pathlib import Path

FILLER = "disk-filler"  # in the tmpfs root, beside the daemon's files (no daemon reads it)


class Tmpfs:
    def __init__(self, path: Path, size: int) -> None:
        self.path = Path(path)
        self.size = size
        self.mounted = False

    def mount(self) -> Tmpfs:
        self.path.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={self.size},mode=0700", "tmpfs", str(self.path)],
                       check=True, capture_output=True)
        self.mounted = True
        return self

    def free_bytes(self) -> int:
        st = os.statvfs(self.path)
        return st.f_bavail * st.f_frsize

    def fill(self) -> int:
        """Take all the free space; returns the filler's size."""
        fd = os.open(self.path / FILLER, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            size = os.fstat(fd).st_size
            for chunk in (1 << 20, 1 << 16, 1 << 12):
                while True:
                    try:
                        os.posix_fallocate(fd, size, chunk)
                    except OSError as e:
                        if e.errno != errno.ENOSPC:
                            raise
                        break
                    size += chunk
            return size
        finally:
            os.close(fd)

    def free(self) -> None:
        (self.path / FILLER).unlink(missing_ok=True)

    def unmount(self) -> None:
        if not self.mounted:
            return
        done = subprocess.run(["umount", str(self.path)], capture_output=True)
        if done.returncode != 0:
            subprocess.run(["umount", "-l", str(self.path)], check=True, capture_output=True)
        self.mounted = False
