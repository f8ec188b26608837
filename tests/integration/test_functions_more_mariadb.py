"""Functions whose answers or result types differed from MariaDB 10.11's, against a live one:
FROM_UNIXTIME(t, format) is a string as DATE_FORMAT's (it was typed DATETIME, which clients
read as a date: PyMySQL failed on '2024'); FORMAT(X, D, locale) in the locale's decimal point
and grouping (en_US's whatever the locale was: de_DE's 1.234.567,89 was 1,234,567.89; en_IN's
lakh grouping, a locale of no separator, a name in any case), an unknown or NULL locale en_US's
with warning 1649, and -0.4 to 0 places '0' (it was '-0'); CHAR(N, ...) a binary string of each
argument's bytes (it was SQLite's code points as text: CHAR(233) 'é'), with USING utf8mb4 /
utf8mb3 text or NULL and warning 1300; GET_FORMAT (it was 1054), INET6_ATON / INET6_NTOA /
IS_IPV4 / IS_IPV6 / IS_IPV4_COMPAT / IS_IPV4_MAPPED and COMPRESS / UNCOMPRESS /
UNCOMPRESSED_LENGTH (they were 1305), with MariaDB's NULLs and warnings. Each statement runs on a stock MariaDB and on our
master and the answers (values and Python types) are compared."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import both_answer, mariadb_and_ours

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d DEFAULT CHARSET utf8mb4 COLLATE utf8mb4_general_ci",
    "CREATE TABLE d.t (id INT PRIMARY KEY, ts INT, f VARCHAR(20))",
    "INSERT INTO d.t VALUES (1, 1709596800, '%Y-%m'), (2, 0, '%d')",
    "CREATE TABLE d.ip (id INT PRIMARY KEY, a VARBINARY(16))",
    "INSERT INTO d.ip VALUES (1, INET6_ATON('10.0.0.1')), (2, INET6_ATON('::1.2.3.4')), (3, INET6_ATON('2001:db8::1')),"
    " (4, INET6_ATON('::ffff:10.0.0.1'))",
]

QUERIES = [
    "SELECT FROM_UNIXTIME(1709596800, '%Y'), FROM_UNIXTIME(1709596800, '%Y-%m-%d %H:%i:%s'), FROM_UNIXTIME(1709596800)",
    "SELECT FROM_UNIXTIME(ts, f), FROM_UNIXTIME(ts) FROM t ORDER BY id",
    "SELECT FORMAT(1234567.891, 2), FORMAT(1234567.891, 2, 'de_DE'), FORMAT(1234.5, 1, 'DE_de'),"
    " FORMAT(-0.5, 0, 'de_DE'), FORMAT(1234567.891, 2, 'en_IN'), FORMAT(1e20, 2, 'de_DE'), FORMAT(12345, -2, 'fr_FR'),"
    " FORMAT('abc', 2, 'de_DE'), FORMAT(1234.5, 1, 'bg_BG')",
    "SELECT FORMAT(-1234567.891, 2, 'de_CH'), FORMAT(-123, 2, 'en_IN'), FORMAT(-12345678, 0, 'ta_IN'),"
    " FORMAT(0.5, 0, 'sv_SE'), FORMAT(999.999, 2, 'ru_RU'), FORMAT(123456789, 3, 'it_IT'), FORMAT(-0.4, 0, 'en_US')",
    "SELECT FORMAT(1234.5, 1, 'xx_XX')",
    "SHOW WARNINGS",
    "SELECT FORMAT(1234.5, 1, NULL)",
    "SHOW WARNINGS",
    "SELECT FORMAT(f, 1, 'de_DE'), FORMAT(ts / 7, 3, 'fr_FR') FROM t ORDER BY id",
    # CHAR: a binary string of each argument's bytes (big-endian, the fewest), NULLs skipped
    "SELECT CHAR(77,121,83,81,76), CHAR(233), CHAR(256), CHAR(1,0), CHAR(NULL), CHAR(65,NULL,66), CHAR(-1),"
    " CHAR(4294967296), CHAR(65.6), CHAR('66'), HEX(CHAR(0x12345678)), HEX(CHAR(1e10)), LENGTH(CHAR(233))",
    "SELECT CHAR('abc'), HEX(CHAR('1e3'))",
    "SHOW WARNINGS",
    "SELECT CHAR(77,121 USING utf8mb4), CHAR(0xC3A9 USING utf8mb4), CHAR(65 USING binary), CHAR(NULL USING utf8)",
    "SELECT CHAR(0xE9 USING utf8mb4), CHAR(66, 0xF0 USING utf8mb3)",
    "SHOW WARNINGS",
    "SELECT GET_FORMAT(DATE,'USA'), GET_FORMAT(DATE,'EUR'), GET_FORMAT(DATE,'JIS'), GET_FORMAT(DATE,'ISO'),"
    " GET_FORMAT(DATE,'INTERNAL'), GET_FORMAT(TIME,'USA'), GET_FORMAT(TIME,'eur'), GET_FORMAT(TIME,'INTERNAL'),"
    " GET_FORMAT(DATETIME,'USA'), GET_FORMAT(TIMESTAMP,'JIS'), GET_FORMAT(DATETIME,'internal'),"
    " GET_FORMAT(DATE,'xx'), GET_FORMAT(DATE,NULL), GET_FORMAT(DATE,'usa ')",
    "SELECT INET6_ATON('::1'), INET6_ATON('10.0.5.9'), INET6_ATON('fdfe::5a55:caff:fefa:9089'),"
    " INET6_ATON('::ffff:1.2.3.4'), INET6_ATON('1:2:3:4:5:6:7::'), INET6_ATON('1.2.3.04'), INET6_ATON('1::2::3'),"
    " INET6_ATON('1.2.3'), INET6_ATON(' ::1'), INET6_ATON('256.1.1.1'), INET6_ATON(':1::'), INET6_ATON(NULL)",
    "SELECT INET6_NTOA(INET6_ATON('::1')), INET6_NTOA(UNHEX('0A000509')), INET6_NTOA(INET6_ATON('::ffff:1.2.3.4')),"
    " INET6_NTOA(UNHEX('20010db8000000010000000000000001')), INET6_NTOA(UNHEX('000000000000000000000000000100ff')),"
    " INET6_NTOA(UNHEX('00010000000000000000000000000000')), INET6_NTOA('abc'), INET6_NTOA(UNHEX('0102030405'))",
    "SELECT IS_IPV4('10.0.5.9'), IS_IPV4('10.0.5.256'), IS_IPV4(NULL), IS_IPV4('1.2.3.0004'), IS_IPV6('::1'),"
    " IS_IPV6('10.0.5.9'), IS_IPV4_COMPAT(INET6_ATON('::10.0.5.9')), IS_IPV4_COMPAT(INET6_ATON('::1')),"
    " IS_IPV4_MAPPED(INET6_ATON('::ffff:10.0.5.9')), IS_IPV4_MAPPED(NULL)",
    "SELECT IS_IPV4_MAPPED(UNHEX('ab7f20')), IS_IPV4_COMPAT('abc')",
    "SHOW WARNINGS",
    "SELECT COMPRESS('abc'), HEX(COMPRESS('abc ')), COMPRESS(''), COMPRESS(NULL), UNCOMPRESS(COMPRESS('abc')),"
    " UNCOMPRESS(''), UNCOMPRESSED_LENGTH(COMPRESS(REPEAT('a', 100))), UNCOMPRESSED_LENGTH(''),"
    " UNCOMPRESS(UNHEX('03000000789C4B4C4A0600024D0127FFFF')), UNCOMPRESSED_LENGTH('garbage')",
    "SELECT UNCOMPRESS('garbage'), UNCOMPRESS('ab'), UNCOMPRESS(UNHEX('01000000789C4B4C4A0600024D0127')),"
    " UNCOMPRESS(UNHEX('00000000789C4B4C4A0600024D0127')), UNCOMPRESSED_LENGTH(UNHEX('0A000000'))",
    "SHOW WARNINGS",
    "SELECT UNCOMPRESS(COMPRESS(f)), INET6_NTOA(INET6_ATON(CONCAT('10.0.0.', id))) FROM t ORDER BY id",
    # a binary string compared with a string: byte for byte (CHAR(65) = 'A' and UNHEX('41') = 'A' were 0)
    "SELECT CHAR(65) = 'A', UNHEX('41') = 'A', HEX(CHAR(233)), HEX(UNHEX('E9')), LENGTH(CHAR(0xC3, 0xA9)),"
    " CHAR(233) = UNHEX('E9'), CONCAT(CHAR(65), 'b'), UNHEX('C3A9') = 'é'",
    # a VARBINARY column's addresses (those whose bytes are UTF-8 are held as TEXT here)
    "SELECT id, INET6_NTOA(a), IS_IPV4_COMPAT(a), IS_IPV4_MAPPED(a), HEX(a), LENGTH(a) FROM ip ORDER BY id",
]


def test_functions_answer_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        for server in (reference, master):
            server.query("SET GLOBAL time_zone = '+00:00'")
        theirs, ours = both_answer(reference, master, SETUP, QUERIES)
        assert [(sql, _typed(answer)) for sql, answer in ours] == [(sql, _typed(answer)) for sql, answer in theirs]


def _typed(answer):
    """An answer with each value's Python type beside it (a DATETIME and a string differ)."""
    if answer[0] != "rows":
        return answer
    return ("rows", tuple(tuple((type(v).__name__, v) for v in row) for row in answer[1]))
