"""Perl's DBD::mysql (installed with percona-toolkit by `make deps`) against a stock MariaDB 10.11
and against our master: the same script (tests/support/perl/dbd_mysql_probe.pl) on each, with
mysql_server_prepare=0 (text protocol) and =1 (binary protocol): column attributes (TYPE,
PRECISION, SCALE, NULLABLE, mysql_type, ...), rows, rows counts, last_insert_id, mysql_info,
err / errstr / state, transactions, the driver's own character set and multi-statements; every
line it prints compared.

Covered: two statements sent without multi-statements fail near the second one's text, as
MariaDB's (was near '; SELECT 2').
Not compared (ours differs, left): a bare `?` select item of a server-side prepared statement
(MariaDB types it from the bound value: CHAR(1) for 'x'; ours VARCHAR), and the column
definitions MariaDB gives a select with a window function (its temporary table's)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.client_probes import probe_output, step_differences
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import OUR_SERVER_CHARSET, mariadb_and_ours

PROBE = Path(__file__).resolve().parents[1] / "support" / "perl" / "dbd_mysql_probe.pl"
PERL = shutil.which("perl")


def _has_dbd_mysql() -> bool:
    return PERL is not None and subprocess.run([PERL, "-MDBD::mysql", "-e", "1"], capture_output=True,
                                               timeout=30).returncode == 0


pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
    pytest.mark.skipif(not _has_dbd_mysql(), reason="needs DBD::mysql (percona-toolkit: make deps)"),
]


def _lines(port: int) -> list[str]:
    return probe_output([PERL, str(PROBE)], port).splitlines()


def test_dbd_mysql_answers_as_from_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path, mariadb_extra=OUR_SERVER_CHARSET) as (reference, master):
        theirs, ours = _lines(reference.port), _lines(master.port)
    by_step = dict(line.split(": ", 1) for line in theirs)
    # what the comparison stands on: MariaDB's own answers for a few of the steps
    assert by_step["prepare=1 duplicate"].startswith("undef | '1062'")
    assert "near 'SELECT 2'" in by_step["prepare=1 two statements"]
    assert step_differences(theirs, ours) == []
