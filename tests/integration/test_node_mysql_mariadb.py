"""Node's pure-JS mysql package (npm, installed by `make deps` into tests/support/node; its own
protocol code, not mysql2's) against a stock MariaDB 10.11 and against our master: the same
steps (tests/support/node/mysql_probe.js) on each, with its defaults (charset
UTF8_GENERAL_CI = 33, typeCast) and its options (supportBigNumbers, bigNumberStrings,
dateStrings, typeCast off or a function, multipleStatements, a charset, changeUser); every
answer as mysql gives it (JS values and types, field packets, OK counts, errors) compared.

Covered: a utf8mb3 connection's column definitions (charsetnr 33 and three bytes a character;
were 45 and four, as stored), a handshake's collation other than its character set's default
(utf8mb4_unicode_ci: 224, as MariaDB's; was 45) and SET NAMES ... COLLATE's; LONGTEXT's and
JSON's length, 4294967295 whatever the connection's character set (was scaled down);
SHOW WARNINGS' column definitions (MariaDB's VARCHAR(7), INT UNSIGNED, VARCHAR(512), NOT NULL);
CURRENT_USER()'s length (384 characters; was 64).
Not compared (ours differs, left): the column definition of a @@variable (only its value is),
the status flags SERVER_QUERY_NO_INDEX_USED / _NO_GOOD_INDEX_USED (ours never sets them)."""

from __future__ import annotations

import shutil

import pytest

from tests.support.client_probes import NODE_DIR, node_steps, step_differences
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import OUR_SERVER_CHARSET, mariadb_and_ours

NODE = shutil.which("node")

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
    pytest.mark.skipif(NODE is None or not (NODE_DIR / "node_modules" / "mysql").is_dir(),
                       reason="needs node and mysql (make deps: npm install in tests/support/node)"),
]


def test_mysql_answers_as_from_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path, mariadb_extra=OUR_SERVER_CHARSET) as (reference, master):
        theirs, ours = node_steps("mysql_probe.js", reference.port), node_steps("mysql_probe.js", master.port)
    by_step = dict(map(tuple, theirs))
    # what the comparison stands on: MariaDB's own answers for a few of the steps
    assert [f[-1] for f in by_step["utf8mb4: charset"]["fields"]] == [224, 224]
    assert by_step["rows, defaults"]["fields"][16] == ["vc", "vc", "t", "t", "m1", 253, 60, 0, 0, 33]
    assert by_step["changeUser"] == "ok" and by_step["its privileges"]["error"] == 1142
    assert step_differences(theirs, ours) == []
