"""MariaDB Connector/J (Debian's libmariadb-java) reading column types from a stock MariaDB
10.11 and from our master: `tests/support/java/ConnectorJTypes.java` writes a row of 30 column
types through PreparedStatement setters (and a row of NULLs, as one batch), reads them back
through Statement, PreparedStatement and `SELECT ?` of several parameter kinds, and prints each
column's ResultSetMetaData (JDBC type, type name, Java class, precision, scale, signedness,
nullability, display size), the Java object getObject returns with its value, getString, and
DatabaseMetaData.getColumns; every line must be the same for both servers, with client-side
prepares (the default) and with useServerPrepStmts=true.

It found: a BigDecimal parameter of `SELECT ?` answered as the old DECIMAL type (getObject a
String; MariaDB's NEWDECIMAL, a BigDecimal), string parameters as CHAR (MariaDB VARCHAR), a
JSON column typed JSON in getColumns (MariaDB's LONGTEXT), CAST(x AS CHAR) 255 long (x's
length) and a _binary literal's scale 0 (39)."""

from __future__ import annotations

import difflib
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import mariadb_and_ours

PROBE = Path(__file__).resolve().parents[1] / "support" / "java" / "ConnectorJTypes.java"
CONNECTOR_J = Path("/usr/share/java/mariadb-java-client.jar")
JAVA = shutil.which("java")

pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
    pytest.mark.skipif(JAVA is None or not CONNECTOR_J.exists(),
                       reason="needs java and Debian's libmariadb-java (Makefile APT_PACKAGES)"),
]


def _probe(port: int, database: str, options: str) -> list[str]:
    assert JAVA is not None
    proc = subprocess.run([JAVA, "-cp", str(CONNECTOR_J), str(PROBE), f"jdbc:mariadb://127.0.0.1:{port}/?user=root{options}",
                           database], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"the probe failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    return proc.stdout.splitlines()


@pytest.mark.parametrize("options", ["", "&useServerPrepStmts=true"], ids=["client_prepares", "server_prepares"])
def test_connector_j_reads_every_type_as_from_mariadb(tmp_path, options):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = _probe(reference.port, "jt", options), _probe(master.port, "jt", options)
    # what the comparison stands on: MariaDB's own lines for a DECIMAL and a BLOB column
    assert "ROW text 1 de BigDecimal -123456789.125 str=-123456789.125" in theirs
    assert any(line.startswith("META text bl type=-3 name=BLOB class=[B") for line in theirs)
    assert "\n".join(difflib.unified_diff(theirs, ours, "MariaDB", "ours", lineterm="", n=0)) == ""
