"""File modes of a datadir: what the daemon keeps there is readable by its own user only.

users.json holds double-SHA1 password hashes (password-equivalent for mysql_native_password),
the engine's files and the binlogs and relay logs hold every row: a datadir is 0700 and every
file in it 0600, as mysqld's default UMASK_DIR and UMASK give (0700, 0660 minus the group bits
we never need).

Contract
- `secure_datadir(path)` runs at startup, before anything in the datadir is opened or created.
  It sets the process umask to 077, so that every file the daemon creates from then on, by any
  code path (binlogs, relay logs, index files, master.info, relay-log.info, users.json,
  plugins.json, auto.cnf, the engine's SQLite files and their journals), is at most 0600 and
  every directory at most 0700, whatever mode the creating call asked for. It creates the
  datadir 0700 if missing, then tightens what an earlier run, an older version or a hand left
  looser: every directory under it (the datadir included) to 0700 and every regular file to
  its owner's bits only, each change logged as a warning that names the file and both modes.
  Symbolic links are neither followed nor changed.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

log = logging.getLogger("semisync.server")

PRIVATE_UMASK = 0o077
DIR_MODE = 0o700


def secure_datadir(datadir: Path) -> list[Path]:
    """Set the umask, create `datadir` 0700, tighten looser modes under it; return what changed."""
    os.umask(PRIVATE_UMASK)
    datadir = Path(datadir)
    datadir.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    changed: list[Path] = []
    if _tighten(datadir, DIR_MODE):
        changed.append(datadir)
    for top, dirs, files in os.walk(datadir):
        for name in dirs:
            path = Path(top, name)
            if _tighten(path, DIR_MODE):
                changed.append(path)
        for name in files:
            path = Path(top, name)
            if _tighten(path, None):
                changed.append(path)
    return changed


def _tighten(path: Path, wanted: int | None) -> bool:
    """Drop the group and other bits of `path` (a directory: exactly `wanted`); True if changed."""
    try:
        st = path.lstat()
    except FileNotFoundError:  # removed meanwhile (a temporary file)
        return False
    if not (stat.S_ISDIR(st.st_mode) or stat.S_ISREG(st.st_mode)):
        return False  # symlinks, sockets, fifos: not ours to change
    mode = stat.S_IMODE(st.st_mode)
    new = wanted if wanted is not None and stat.S_ISDIR(st.st_mode) else mode & 0o700
    if not mode & 0o077:
        return False
    os.chmod(path, new, follow_symlinks=False)
    log.warning("%s had mode %04o, readable by other users of this machine: changed to %04o",
                path, mode, new)
    return True
