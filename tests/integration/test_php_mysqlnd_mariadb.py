"""PHP's mysqlnd (php-cli and php-mysql, installed by `make deps`) against a stock MariaDB 10.11
and against our master: the same script (tests/support/php/mysqlnd_probe.php) on each, through
mysqli (text and prepared statements, bind_result of every column type, multi_query, stored
and unbuffered results, counts, errors, transactions, change_user) and PDO_MySQL with emulated
and server-side prepares, a TLS login; every line it prints compared. The reference runs with
ours' server character set (`OUR_SERVER_CHARSET`), as mysqlnd takes the greeting's when it names
none, and offers TLS with a certificate made as ours makes its own.

Covered: COM_SET_OPTION, which mysqli_multi_query sends around its query (was 1047, so the
statements ran as one and failed with 1064); the greeting's collation, collation_server's
(utf8mb4_general_ci, 45; was 33, so mysqlnd's connections were utf8mb3); a second statement
sent without multi-statements (PDO's server-side prepare of 'SELECT 1; SELECT 2') fails near
the second statement's text, as MariaDB's (was near '; SELECT 2')."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from server.tls import certificate_files
from tests.support.client_probes import probe_output, step_differences
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import OUR_SERVER_CHARSET, mariadb_and_ours

PROBE = Path(__file__).resolve().parents[1] / "support" / "php" / "mysqlnd_probe.php"
PHP = shutil.which("php")


def _has_mysqlnd() -> bool:
    if PHP is None:
        return False
    modules = subprocess.run([PHP, "-m"], capture_output=True, text=True, timeout=30).stdout.split()
    return "mysqli" in modules and "pdo_mysql" in modules


pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
    pytest.mark.skipif(not _has_mysqlnd(), reason="needs php-cli and php-mysql (make deps)"),
]


def _lines(port: int) -> list[str]:
    return probe_output([PHP, "-d", "display_errors=stderr", str(PROBE)], port).splitlines()


def test_mysqlnd_answers_as_from_mariadb(tmp_path):
    # the reference offers TLS as ours does (ours makes its certificate at first start)
    (tmp_path / "tls").mkdir()
    tls = certificate_files(tmp_path / "tls", None, None, None)
    tls_options = (f"--ssl-cert={tls.cert}", f"--ssl-key={tls.key}", f"--ssl-ca={tls.ca}")
    with mariadb_and_ours(tmp_path, mariadb_extra=OUR_SERVER_CHARSET + tls_options) as (reference, master):
        theirs, ours = _lines(reference.port), _lines(master.port)
    by_step = dict(line.split(": ", 1) for line in theirs)
    # what the comparison stands on: MariaDB's own answers for a few of the steps
    assert by_step["multi_query"] == "boolean(true)"
    assert by_step["after multi"] == "[0 => integer(5)]"
    assert by_step["change_user"] == "[0 => boolean(true), 1 => integer(0)]"
    assert by_step["tls"].startswith("[0 => boolean(true), 1 => [0 => string(53736c5f76657273696f6e), 1 => string(544c53")
    assert step_differences(theirs, ours) == []
