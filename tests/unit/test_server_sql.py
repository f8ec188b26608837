"""server.sql: dispatch keyword, multi-statement splitting, the admin tokenizer."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.errors import ER_NO_SUCH_TABLE, SQLError
from server.sql import (
    Tokens,
    head,
    in_packet,
    is_blank,
    limits_itself,
    names_a_table,
    near_text,
    parse_error,
    split_statements,
    tokenize,
    unwrap_comments,
)


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("INSERT INTO t VALUES (1)", "INSERT INTO"),
        ("  show   master status", "SHOW MASTER"),
        ("COMMIT", "COMMIT"),
        ("commit;", "COMMIT"),
        ("/* hint */ SELECT 1", "SELECT 1"),
        ("-- c\nSHOW VARIABLES", "SHOW VARIABLES"),
        ("# c\nset @a=1", "SET"),
        ("select @@version_comment limit 1", "SELECT"),
        ("SELECT binlog_gtid_pos('f', 4)", "SELECT BINLOG_GTID_POS"),
        ("", ""),
        ("   ", ""),
        ("(SELECT 1)", ""),
    ],
)
def test_head(sql, expected):
    assert head(sql) == expected


def test_split_respects_quotes_and_comments():
    sql = (
        "INSERT INTO t VALUES ('a;b', \"c;d\", `e;f`);\n"
        "-- comment; here\nSELECT 1; /* ; */ SELECT 'it''s;' ; # tail;\n"
        "SELECT 'back\\';slash';;"
    )
    parts = split_statements(sql)
    assert parts[0] == "INSERT INTO t VALUES ('a;b', \"c;d\", `e;f`)"
    assert parts[1].endswith("SELECT 1")
    assert parts[2] == "/* ; */ SELECT 'it''s;'"
    assert parts[3].endswith("SELECT 'back\\';slash'")
    assert len(parts) == 4


def test_executable_comments_as_mysqldump_writes_them():
    v = 101199
    assert unwrap_comments("/*!40101 SET NAMES utf8 */;", v) == "SET NAMES utf8"
    assert unwrap_comments("/*!40014 SET @OLD=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */", v) == (
        "SET @OLD=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0")
    assert unwrap_comments("/*M!100616 SET @N=@@NOTE_VERBOSITY */", v) == "SET @N=@@NOTE_VERBOSITY"
    assert unwrap_comments("/*M!110201 SET @N=1 */", v) == ""  # newer than us: a comment
    assert unwrap_comments("/*! SET @a=1 */", v) == "SET @a=1"
    assert unwrap_comments("/* plain */ SELECT '/* kept */'", v) == "SELECT '/* kept */'"
    sandbox = "/*M!999999\\- enable the sandbox mode */ \n-- dump\n--\n\n/*!40101 SET @X=@@CHARACTER_SET_CLIENT */"
    assert unwrap_comments(sandbox, v) == "SET @X=@@CHARACTER_SET_CLIENT"


def test_blank():
    assert is_blank("  /* x */ -- y\n")
    assert not is_blank(" SELECT 1")


def test_tokens_of_the_replica_bootstrap():
    toks = tokenize("SET @master_binlog_checksum= @@global.binlog_checksum;")
    assert [t.kind for t in toks] == ["WORD", "USERVAR", "OP", "SYSVAR"]
    assert toks[1].value == "master_binlog_checksum"
    assert toks[3].value == ("GLOBAL", "binlog_checksum")
    toks = tokenize("SELECT @@SESSION.Auto_Increment_Increment AS x, 'a''b\\n', 0x1F, -1.5e3")
    assert toks[1].value == ("SESSION", "auto_increment_increment")
    assert toks[5].text == "a'b\n"
    assert toks[7].value == 31
    assert toks[9].text == "-" and toks[10].value == 1.5e3


def test_syntax_error_names_the_place():
    t = Tokens("SHOW VARIABLES LIKE 42")
    t.expect_word("SHOW")
    t.expect_word("VARIABLES")
    t.expect_word("LIKE")
    with pytest.raises(SQLError) as err:
        t.expect_word("X")
    assert err.value.code == 1064
    assert "near '42' at line 1" in err.value.message



@given(st.text(max_size=200))
def test_arbitrary_text_never_breaks_the_helpers(text):
    head(text)
    is_blank(text)
    parts = split_statements(text)
    assert all(p and p == p.strip() for p in parts)
    try:
        tokenize(text)
    except SQLError as err:
        assert err.code == 1064


@given(st.lists(st.sampled_from(["SELECT 1", "SET @a='x;y'", "SHOW VARIABLES LIKE 'a%'",
                                 "INSERT INTO t VALUES (\"q;\")", "/* c; */ COMMIT"]), min_size=1, max_size=6))
def test_split_inverts_joining_with_semicolons(statements):
    assert split_statements(";".join(statements)) == statements
    assert split_statements(" ;\n".join(statements) + ";") == statements


def test_head_skips_a_comment_between_the_first_two_words():
    assert head("SHOW /*40003 GLOBAL*/ VARIABLES") == "SHOW VARIABLES"  # pt-variable-advisor's
    assert head("SHOW # why\n STATUS") == "SHOW STATUS"
    assert head("COMMIT") == "COMMIT" and head("SELECT * FROM t") == "SELECT"
    assert head("SELECT /*!1 x*/ 1") == "SELECT"  # an executable comment is kept: not skipped


_NAMES_A_TABLE = [
    ("SELECT 1", False),
    ("SELECT 1 FROM DUAL", False),
    ("SELECT EXTRACT(YEAR FROM NOW())", False),
    ("SELECT TRIM(LEADING 'a' FROM 'ab'), SUBSTRING('abc' FROM 2)", False),
    ("SET @a = 'FROM t'", False),
    ("SELECT * FROM t", True),
    ("select a from `t`", True),
    ("SELECT (SELECT a FROM t)", True),
    ("SELECT 1 FROM DUAL WHERE 1 IN (SELECT a FROM t)", True),
    ("SELECT * FROM (SELECT 1) x", True),
    ("SET @a = (SELECT a FROM t LIMIT 1)", True),
    ("DO (SELECT COUNT(*) FROM t)", True),
    ("SELECT 'unterminated", True),
]
_LIMITS_ITSELF = [
    ("SELECT * FROM t", False),
    ("SELECT * FROM t WHERE a IN (SELECT a FROM u LIMIT 1)", False),
    ("SELECT * FROM (SELECT a FROM u LIMIT 2) x", False),
    ("SELECT 'LIMIT 1'", False),
    ("SELECT * FROM t LIMIT 3", True),
    ("SELECT * FROM t UNION SELECT * FROM u limit 3", True),
    ("SELECT * FROM t ORDER BY a FETCH FIRST 2 ROWS ONLY", True),
]


@pytest.mark.parametrize(
    "question, sql, expected",
    [(names_a_table, *case) for case in _NAMES_A_TABLE] + [(limits_itself, *case) for case in _LIMITS_ITSELF],
)
def test_what_a_statement_names(question, sql, expected):
    """names_a_table (a FROM of a SELECT, not DUAL) and limits_itself (LIMIT / FETCH outside
    parentheses)."""
    assert question(sql) is expected


@pytest.mark.parametrize(
    "sql, clears",
    [
        ("SELECT 1", False),
        ("SET @a = 1", False),
        ("USE d", False),
        ("BEGIN", False),
        ("CREATE DATABASE d2", False),
        ("DROP USER u@localhost", False),
        ("GRANT SELECT ON d.* TO u@localhost", False),
        ("SHOW PROCESSLIST", False),
        ("SHOW FULL PROCESSLIST", False),
        ("SHOW CREATE DATABASE d", False),
        ("SELECT * FROM t", True),
        ("INSERT INTO t VALUES (1)", True),
        ("CREATE TABLE t (a INT)", True),
        ("CREATE OR REPLACE VIEW v AS SELECT 1", True),
        ("SHOW TABLES", True),
        ("SHOW GLOBAL VARIABLES LIKE 'x'", True),
        ("SHOW CREATE TABLE t", True),
        ("LOCK TABLES t READ", True),
        ("EXECUTE s", True),
    ],
)
def test_statements_that_start_a_new_warnings_list(sql, clears):
    from server.session import ClientSession

    assert ClientSession._clears_warnings(head(sql), sql) is clears


@pytest.mark.parametrize(
    "sql, limited",
    [
        ("SELECT * FROM t", True),
        ("WITH x AS (SELECT 1) SELECT * FROM x", True),
        ("SHOW TABLES", True),
        ("SHOW FULL TABLES", True),
        ("SHOW SESSION VARIABLES LIKE 'a%'", True),
        ("SHOW TABLE STATUS", True),
        ("SHOW GRANTS", False),
        ("SHOW FULL PROCESSLIST", False),
        ("SHOW SLAVE STATUS", False),
        ("SHOW WARNINGS", False),
        ("INSERT INTO t SELECT * FROM u", False),
    ],
)
def test_statements_sql_select_limit_limits(sql, limited):
    from server.session import _select_limited

    assert _select_limited(head(sql), sql) is limited


def test_a_syntax_error_in_a_multi_statement_quotes_the_packet_on():
    sql = "SELECT 1; SELEC 2 ;SELECT 3"
    statements = split_statements(sql)
    assert in_packet(parse_error(statements[1], 0), sql, statements, 1).message.endswith(
        "near 'SELEC 2 ;SELECT 3' at line 1")
    pieces = ["SELECT 1 FRO x", "SELECT 2"]
    assert in_packet(parse_error(pieces[0], 9), "SELECT 1 FRO x; SELECT 2", pieces, 0).message.endswith(
        "near 'FRO x; SELECT 2' at line 1")
    # quoting less than to the piece's end, 80 characters already, or no 1064: as it was
    short = parse_error("SELECT 1 FRO", 9)
    assert in_packet(short, "SELECT 1 FRO x; SELECT 2", pieces, 0) is short
    long = "SELEC " + "x" * 100
    assert in_packet(parse_error(long, 0), long + "; SELECT 2", [long, "SELECT 2"], 0).message == parse_error(long, 0).message
    other = SQLError(ER_NO_SUCH_TABLE, "d", "t")
    assert in_packet(other, sql, statements, 1) is other
    assert near_text(other) is None and near_text(parse_error("SELEC 2", 0)) == "SELEC 2"
