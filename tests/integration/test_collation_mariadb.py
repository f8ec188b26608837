"""Character columns compare as MariaDB 10.11's utf8mb4_general_ci (engine.collation): every BMP
code point's weight equal to MariaDB's WEIGHT_STRING, and a table's lookups, IN, ranges, GROUP BY,
DISTINCT, ORDER BY, MIN/MAX and unique keys answering as MariaDB's on the same rows (case, accents,
trailing spaces, ß, a utf8mb4_bin column, CHAR), literals compared with literals and with
expressions, LIKE with a prefix (an index range here, its bounds under the collation) and LIKE
on a utf8mb4_bin column (by code points), through the text protocol.

Left out, where the two still differ: a comparison of a literal with an expression ('a' = 'A',
UPPER(v) = 'AB': under the collation here too) stays binary in a statement that names a binary
character column (a utf8mb4_bin or JSON column, BINARY, COLLATE); LIKE on an expression over a
utf8mb4_bin column matches by utf8mb4_general_ci's weights (MariaDB: by code points)."""

from __future__ import annotations

import pytest

from engine.collation import weight
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import both_answer, mariadb_and_ours

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(20), c CHAR(5), x TEXT, b VARCHAR(20) COLLATE utf8mb4_bin,"
    " KEY (v)) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci",
    "INSERT INTO d.t VALUES (1, 'ab', 'ab', 'ab', 'ab'), (2, 'AB  ', 'AB', 'AB  ', 'AB'), (3, 'äb', 'Äb', 'éa', 'ß'),"
    " (4, 'b', 'B', 'B', 'b'), (5, 'Straße', 'ss', 'STRASE', 's'), (6, 'a\tb', 'a', 'a b', 'A'), (7, NULL, 'é', 'E', 'é')",
    "CREATE TABLE d.u (s VARCHAR(10) PRIMARY KEY) DEFAULT CHARSET=utf8mb4",
    "CREATE TABLE d.e (id INT PRIMARY KEY, v VARCHAR(20), n INT) DEFAULT CHARSET=utf8mb4",
    "INSERT INTO d.e VALUES (1, 'ab', 1), (2, 'AB  ', 2), (3, 'äb', 3), (4, ' b', 4), (5, 'Straße', 5)",
]

QUERIES = [
    "SELECT id FROM t WHERE v = 'AB' ORDER BY id",
    "SELECT id FROM t WHERE v = 'ab  ' ORDER BY id",
    "SELECT id FROM t WHERE v = 'ÄB' ORDER BY id",
    "SELECT id FROM t WHERE v = 'STRASSE' ORDER BY id",
    "SELECT id FROM t WHERE v = 'strase' ORDER BY id",
    "SELECT id FROM t WHERE x = 'EA' ORDER BY id",
    "SELECT id FROM t WHERE c = 'Ab' ORDER BY id",
    "SELECT id FROM t WHERE b = 'AB' ORDER BY id",
    "SELECT id FROM t WHERE b = 'ss' ORDER BY id",
    "SELECT id FROM t WHERE x = 'e' ORDER BY id",
    "SELECT id FROM t WHERE v IN ('AB', 'B') ORDER BY id",
    "SELECT id FROM t WHERE v > 'AC' ORDER BY id",
    "SELECT id FROM t WHERE v < 'a' ORDER BY id",
    "SELECT id FROM t WHERE v BETWEEN 'A' AND 'AZ' ORDER BY id",
    "SELECT id FROM t WHERE v = x ORDER BY id",
    "SELECT upper(v), count(*) FROM t GROUP BY v ORDER BY v",
    "SELECT upper(x) FROM t GROUP BY x ORDER BY x",
    "SELECT count(DISTINCT v), count(DISTINCT x), count(DISTINCT b), count(DISTINCT c) FROM t",
    "SELECT id FROM t ORDER BY v, id",
    "SELECT id FROM t ORDER BY x, id",
    "SELECT id FROM t ORDER BY b, id",
    "SELECT id FROM t ORDER BY c DESC, id",
    "SELECT upper(max(v)), upper(min(x)), upper(max(c)) FROM t",
    "SELECT id FROM t WHERE v LIKE 'ab%' ORDER BY id",
    "SELECT id FROM t WHERE v LIKE 'A_' ORDER BY id",
    "SELECT id FROM t WHERE v LIKE 'st%' AND id > 1 ORDER BY id",
    "SELECT id FROM t WHERE x LIKE 'e%' OR v LIKE 'b%' ORDER BY id",
    "SELECT id FROM t WHERE v LIKE '%ss%' OR x LIKE '%é%' ORDER BY id",
    "SELECT id FROM t WHERE b LIKE 'a%' ORDER BY id",
    "SELECT id FROM t WHERE t.b NOT LIKE 'A%' ORDER BY id",
    "SELECT id, b LIKE '_', b LIKE 'S' FROM t ORDER BY id",
    "SELECT 'Straße' LIKE 'STRA_E', 'ab ' LIKE 'ab', 'É' LIKE 'e', 'a%b' LIKE 'a\\%b', 'ab' LIKE 'a\\%b'",
    "SELECT STRCMP('a', 'A'), STRCMP('b', 'A'), STRCMP('é', 'E'), STRCMP('a ', 'a'), STRCMP(NULL, 'a')",
    "SELECT 'a' = 'A', 'a' < 'B', 'ab' = 'ab  ', 'é' = 'e', 'ß' = 's', 'ä' = 'a', 'a' <> 'A', 'b' > 'A'",
    "SELECT id FROM e WHERE UPPER(v) = 'AB' ORDER BY id",
    "SELECT id FROM e WHERE CONCAT(v, '') = 'ab' ORDER BY id",
    "SELECT id FROM e WHERE TRIM(v) = 'B' OR 'STRASSE' = REPLACE(v, 'ß', 'ss') ORDER BY id",
    "SELECT id FROM e WHERE 'AB' = LOWER(v) AND n > '1' ORDER BY id",
    "SELECT id, v = 'AB', SUBSTRING(v, 1, 1) < 'B' FROM e ORDER BY id",
    "SELECT id FROM t WHERE UPPER(b) = 'ab' OR LOWER(b) = 'AB' ORDER BY id",
    "INSERT INTO u VALUES ('a')",
    "INSERT INTO u VALUES ('A')",
    "INSERT INTO u VALUES ('a ')",
    "INSERT INTO u VALUES ('á')",
    "INSERT INTO u VALUES ('b')",
    "SELECT * FROM u ORDER BY s",
]


def test_weights_are_mariadbs_for_every_bmp_code_point(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, _):
        reference.query("CREATE DATABASE w")
        reference.query("CREATE TABLE w.cp (n INT PRIMARY KEY)")
        points = [n for n in range(0x10000) if not 0xD800 <= n <= 0xDFFF]
        for at in range(0, len(points), 4096):
            reference.query("INSERT INTO w.cp VALUES " + ",".join(f"({n})" for n in points[at:at + 4096]))
        rows = reference.query("SELECT n, HEX(WEIGHT_STRING(CONVERT(CHAR(n USING utf32) USING utf8mb4)"
                               " COLLATE utf8mb4_general_ci)) FROM w.cp")
        theirs = {n: int(w, 16) for n, w in rows}
        assert len(theirs) == len(points)
        differ = {hex(n): (hex(w), hex(weight(n))) for n, w in theirs.items() if weight(n) != w}
        assert differ == {}
        (above,), = reference.query("SELECT HEX(WEIGHT_STRING(CONVERT(CHAR(128512 USING utf32) USING utf8mb4)"
                                    " COLLATE utf8mb4_general_ci))")
        assert int(above, 16) == weight(128512) == 0xFFFD


def test_character_columns_compare_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, QUERIES)
        assert ("INSERT INTO u VALUES ('á')", ("error", 1062, "23000", "Duplicate entry 'á' for key 'PRIMARY'")) in theirs
        assert ours == theirs
