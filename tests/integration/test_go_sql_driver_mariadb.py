"""Go's go-sql-driver/mysql (database/sql; gh-ost's and orchestrator's driver; golang-go and
golang-github-go-sql-driver-mysql-dev, installed by `make deps`) against a stock MariaDB 10.11
and against our master: the same program (tests/support/go/go_sql_driver_probe.go) on each, with
interpolateParams=false (every query with arguments prepared: binary protocol) and =true,
parseTime=false and =true, ColumnTypes() of every column type, values scanned into any,
LastInsertId / RowsAffected, MySQLError numbers and messages, multiStatements, BeginTx with
isolation levels and READ ONLY, LOAD DATA LOCAL INFILE, KILL QUERY, columnsWithAlias,
clientFoundRows, rejectReadOnly, charset / collation, maxAllowedPacket=0 and tls=skip-verify;
every line it prints compared. The reference runs with ours' server character set and offers
TLS with a certificate made as ours makes its own.

Covered: the SSLRequest's filler, which the driver (1.5) leaves holding the greeting's bytes:
mysqld reads past it, ours refused the login ("malformed SSL request"; tls=skip-verify failed
with "first record does not look like a TLS handshake"); a prepare's syntax error quotes the
statement as written ('SELEC ?' was near 'SELEC 0'); CAST(1.25 AS DECIMAL(5,2)) is NOT NULL
when its operand is (was nullable); SHOW STATUS / VARIABLES columns are NOT NULL
information_schema VARCHARs (were nullable); LOAD DATA ... REPLACE of rows equal to the stored
ones counts each once, as MariaDB's in-place update (was twice: 4 for 2).
Not compared (ours differs, left): an expression of a placeholder in a prepared statement,
`1 + ?` and `CAST(? AS DECIMAL(5,2))` (MariaDB: nullable, `1 + ?` a BIGINT from the bound
LONGLONG; ours types the bound value's literal: NOT NULL, INT); a write under READ COMMITTED or
READ UNCOMMITTED (ours writes, MariaDB's STATEMENT binlog refuses InnoDB's with 1665)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from server.tls import certificate_files
from tests.support.client_probes import probe_output, step_differences
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import OUR_SERVER_CHARSET, mariadb_and_ours

PROBE = Path(__file__).resolve().parents[1] / "support" / "go" / "go_sql_driver_probe.go"
GO = shutil.which("go")
GOPATH = Path("/usr/share/gocode")  # where Debian's golang-*-dev packages put their sources
DRIVER = GOPATH / "src" / "github.com" / "go-sql-driver" / "mysql"

pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
    pytest.mark.skipif(GO is None or not DRIVER.is_dir(),
                       reason="needs golang-go and golang-github-go-sql-driver-mysql-dev (make deps)"),
]

# the steps where ours answers otherwise (the module's header), MariaDB's then ours
LEFT = {
    "interpolate=false parseTime=false expressions type a", "interpolate=false parseTime=true expressions type a",
    "interpolate=false parseTime=false expressions type x", "interpolate=false parseTime=true expressions type x",
    "tx write Read Uncommitted", "tx write Read Committed",
}


def _build(tmp_path: Path) -> Path:
    """The probe compiled offline against the Debian package's driver (GOPATH mode)."""
    binary = tmp_path / "go_sql_driver_probe"
    env = {**os.environ, "GOPATH": str(GOPATH), "GO111MODULE": "off", "GOFLAGS": "",
           "GOCACHE": str(tmp_path / "gocache")}
    done = subprocess.run([GO, "build", "-o", str(binary), str(PROBE)], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    return binary


def _steps(binary: Path, port: int) -> list[tuple[str, str]]:
    lines = probe_output([str(binary)], port).splitlines()
    steps = [tuple(line.split(": ", 1)) for line in lines]
    return [(name, answer) for name, answer in steps if name not in LEFT]


def test_go_sql_driver_answers_as_from_mariadb(tmp_path):
    binary = _build(tmp_path)
    (tmp_path / "tls").mkdir()
    tls = certificate_files(tmp_path / "tls", None, None, None)
    tls_options = (f"--ssl-cert={tls.cert}", f"--ssl-key={tls.key}", f"--ssl-ca={tls.ca}")
    with mariadb_and_ours(tmp_path, mariadb_extra=OUR_SERVER_CHARSET + tls_options) as (reference, master):
        theirs, ours = _steps(binary, reference.port), _steps(binary, master.port)
    by_step = dict(theirs)
    # what the comparison stands on: MariaDB's own answers for a few of the steps
    assert by_step["tls row"] == '[]byte("Ssl_version") | []byte("TLSv1.3")'
    assert by_step["interpolate=false parseTime=false syntax"].endswith("near 'SELEC ?' at line 1\")")
    assert by_step["clientFoundRows=true update same"] == "int64(0) | nil | int64(2) | nil"
    assert by_step["load local"] == "int64(0) | nil | int64(2) | nil"
    assert by_step["load allowAllFiles"] == "int64(0) | nil | int64(2) | nil"
    assert step_differences(theirs, ours) == []
