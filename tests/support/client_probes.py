"""A client's probe script (tests/support/node, php, perl, go, ruby: one run of a client nobody on the
project wrote, printing everything it saw) run against one server, and two runs compared step by
step. The integration tests run each probe on a stock MariaDB and on ours."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

NODE_DIR = Path(__file__).resolve().parent / "node"


def probe_output(argv: Sequence[str], port: int, cwd: Path | None = None, quiet: bool = True) -> str:
    """What the probe `argv` printed against the server on `port` (it must exit 0, and with
    `quiet` say nothing on stderr: a client's warning is a difference too)."""
    done = subprocess.run([*argv, str(port)], capture_output=True, text=True, timeout=120, cwd=cwd)
    assert done.returncode == 0 and not (quiet and done.stderr), done.stdout[-2000:] + done.stderr
    return done.stdout


def node_steps(script: str, port: int) -> list[Any]:
    """A Node probe's (name, answer) steps, from the JSON it prints."""
    return json.loads(probe_output(["node", str(NODE_DIR / script)], port, cwd=NODE_DIR, quiet=False))


def step_differences(theirs: Sequence[Any], ours: Sequence[Any]) -> list[tuple[Any, Any]]:
    """The steps whose answers differ, MariaDB's then ours (the same steps in the same order)."""
    assert len(theirs) == len(ours), (len(theirs), len(ours))
    return [(t, o) for t, o in zip(theirs, ours, strict=True) if t != o]
