"""Ruby's mysql2 gem (Rails' adapter, over libmariadb; ruby-mysql2, installed by `make deps`)
against a stock MariaDB 10.11 and against our master: the same script
(tests/support/ruby/mysql2_probe.rb) on each: Client#query with cast / symbolize_keys / as:
:array / streaming, Mysql2::Statement (binary protocol) over every column type, fields,
affected_rows / last_id / warning_count / query_info, multi-statements with next_result,
errors (error_number, sql_state, message), encodings, ping, escape and server_info; every line
it prints compared.

Covered: a syntax error in one statement of a multi-statement quotes the packet on from the
error, as mysqld's ('SELECT 1; SELEC 2; SELECT 3' is near 'SELEC 2; SELECT 3'; was near
'SELEC 2'); a prepare's syntax error quotes the statement as written ('SELEC ?'; was near
'SELEC 0')."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.client_probes import probe_output, step_differences
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import OUR_SERVER_CHARSET, mariadb_and_ours

PROBE = Path(__file__).resolve().parents[1] / "support" / "ruby" / "mysql2_probe.rb"
RUBY = shutil.which("ruby")


def _has_mysql2() -> bool:
    return RUBY is not None and subprocess.run([RUBY, "-rmysql2", "-e", "1"], capture_output=True,
                                               timeout=30).returncode == 0


pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
    pytest.mark.skipif(not _has_mysql2(), reason="needs ruby-mysql2 (make deps)"),
]


def _lines(port: int) -> list[str]:
    return probe_output([RUBY, str(PROBE)], port).splitlines()


def test_mysql2_answers_as_from_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path, mariadb_extra=OUR_SERVER_CHARSET) as (reference, master):
        theirs, ours = _lines(reference.port), _lines(master.port)
    by_step = dict(line.split(": ", 1) for line in theirs)
    # what the comparison stands on: MariaDB's own answers for a few of the steps
    assert "near 'SELEC 2; SELECT 3'" in by_step["multi error"]
    assert "near 'SELEC ?'" in by_step["statement syntax"]
    assert by_step["ping"] == "TrueClass(true)"
    assert step_differences(theirs, ours) == []
