"""The server's own files without a server (server/file_statements.py): secure_file_priv's rules
and MariaDB's resolution of relative names, the INTO OUTFILE / DUMPFILE clause taken out of a
SELECT, and the bytes select_export / select_dump write. The byte-for-byte comparison with
MariaDB's files is tests/integration/test_file_statements_mariadb.py."""

from __future__ import annotations

import os
from decimal import Decimal

import pytest

from config.node import parse_secure_file_priv
from engine.coltypes import ColumnType
from protocol.errors import SQLError
from protocol.messages import CHARSET_UTF8MB4_GENERAL_CI, FieldType
from server.file_statements import (
    Export,
    FileAccess,
    dump_rows,
    export_rows,
    into_file_clause,
    numeric_columns,
)

TEXT = ColumnType(FieldType.VAR_STRING, 80, charset=CHARSET_UTF8MB4_GENERAL_CI)
INT = ColumnType(FieldType.LONG, 11)
DECIMAL = ColumnType(FieldType.NEWDECIMAL, 12, 3)
BIT = ColumnType(FieldType.BIT, 5)
DATETIME = ColumnType(FieldType.DATETIME, 23, 3)


def test_secure_file_priv_option_values():
    assert parse_secure_file_priv(None) is None
    assert parse_secure_file_priv("NULL") is None and parse_secure_file_priv("null") is None
    assert parse_secure_file_priv("") == "" and parse_secure_file_priv("  ") == ""
    assert parse_secure_file_priv("/var/lib/files") == "/var/lib/files"


def test_file_access_allows_a_directory_and_below_it(tmp_path):
    allowed = tmp_path / "files"
    (allowed / "sub").mkdir(parents=True)
    (tmp_path / "other").mkdir()
    os.symlink(tmp_path / "other", allowed / "out")
    access = FileAccess.configured(str(allowed), tmp_path / "data")
    assert access.variable == f"{allowed}/"
    for path in (f"{allowed}/a.txt", f"{allowed}/sub/a.txt", f"{allowed}/sub/../b.txt"):
        access.check(path)
    for path in (f"{allowed}/nodir/a.txt", f"{tmp_path}/other/a.txt", f"{allowed}/../a.txt", f"{allowed}/out/a.txt",
                 "/a.txt", "a.txt"):
        with pytest.raises(SQLError) as refused:
            access.check(path)
        assert refused.value.code == 1290, path
    with pytest.raises(ValueError):
        FileAccess.configured(str(tmp_path / "missing"), tmp_path / "data")


def test_file_access_any_directory_and_none(tmp_path):
    anywhere = FileAccess.configured("", tmp_path)
    assert anywhere.variable is None
    anywhere.check(f"{tmp_path}/a.txt")
    with pytest.raises(SQLError):  # (its directory must exist)
        anywhere.check(f"{tmp_path}/missing/a.txt")
    nowhere = FileAccess.configured(None, tmp_path)
    assert nowhere.variable is None
    with pytest.raises(SQLError) as refused:
        nowhere.check(f"{tmp_path}/a.txt")
    assert refused.value.message == ("The MariaDB server is running with the --secure-file-priv option so it "
                                     "cannot execute this statement")


def test_relative_names_are_the_datadirs():
    access = FileAccess("/data/", "")
    assert access.resolve("/abs/f.txt", "d") == "/abs/f.txt"
    assert access.resolve("f.txt", "d") == "/data/d/f.txt"
    assert access.resolve("f.txt", None) == "/data/f.txt"
    assert access.resolve("sub/f.txt", "d") == "/data/sub/f.txt"


def test_the_clause_is_taken_out_of_the_select():
    clause = into_file_clause("SELECT a, 'INTO OUTFILE' FROM t INTO OUTFILE '/f' CHARACTER SET utf8mb4 "
                              "FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' ESCAPED BY '' "
                              "LINES STARTING BY 'x' TERMINATED BY '\\r\\n' FOR UPDATE")
    assert clause.export == Export("OUTFILE", "/f", ",", '"', True, "", "\r\n", "x")
    assert clause.select == "SELECT a, 'INTO OUTFILE' FROM t  FOR UPDATE"
    assert clause.after_from and clause.charset == "utf8mb4"
    before = into_file_clause("SELECT (SELECT 1 FROM u) INTO DUMPFILE 'd' FROM t WHERE a|b")
    assert before.export == Export("DUMPFILE", "d")
    assert before.select == "SELECT (SELECT 1 FROM u)  FROM t WHERE a|b" and not before.after_from
    for sql, code in (("SELECT 1 INTO OUTFILE 'f' CHARACTER SET latin1", 1235),
                      ("SELECT 1 INTO DUMPFILE 'f' FIELDS TERMINATED BY ','", 1064),
                      ("SELECT 1 INTO OUTFILE 'f' INTO OUTFILE 'g'", 1064),
                      ("SELECT 1 INTO OUTFILE 'f' FROM DUAL INTO @a", 1064),
                      ("SELECT 1 INTO OUTFILE 'f' FIELDS", 1064)):
        with pytest.raises(SQLError) as refused:
            into_file_clause(sql)
        assert refused.value.code == code, sql


def test_which_columns_are_numbers():
    assert numeric_columns([TEXT, INT, DECIMAL, BIT, DATETIME, ColumnType(FieldType.YEAR, 4), "integer", "string",
                            "double", "datetime"]) == [False, True, True, True, False, True, True, False, True, False]


ROWS = [(1, "a\tb\nc\\d", b"\0A\n\t\xff", Decimal("-1.500"), "2020-01-02 03:04:05.123", b"\x05"),
        (2, None, b"", Decimal("0.000"), None, None)]
TYPES = [INT, TEXT, ColumnType(FieldType.VAR_STRING, 10), DECIMAL, DATETIME, BIT]


def test_outfile_bytes_with_the_default_options():
    data, ambiguous = export_rows(ROWS, numeric_columns(TYPES), Export("OUTFILE", "f"))
    assert data == (b"1\ta\\\tb\\\nc\\\\d\t\\0A\\\n\\\t\xff\t-1.500\t2020-01-02 03:04:05.123\t\x05\n"
                    b"2\t\\N\t\t0.000\t\\N\t\\N\n")
    assert not ambiguous


def test_outfile_bytes_of_csv_options():
    csv = Export("OUTFILE", "f", ",", '"', True, "\\", "\r\n", ">")
    data, _ = export_rows([(1, 'q"x,y', b"\0")], [True, False, False], csv)
    assert data == b'>1,"q\\"x,y","\\0"\r\n'  # (only the quote, the escape and NUL escaped inside quotes)
    always = Export("OUTFILE", "f", ",", '"', False, "", "\n")
    data, _ = export_rows([(1, 'a"b', None)], [True, False, False], always)
    assert data == b'"1","a"b",NULL\n'


def test_outfile_ambiguous_terminator_and_fixed_width():
    data, ambiguous = export_rows([(1, "n1")], [True, False], Export("OUTFILE", "f", "n", lines_terminated=""))
    assert ambiguous and data == b"1nn1n"  # (the terminator in a value is not escaped then)
    with pytest.raises(SQLError) as refused:
        export_rows([(1,)], [True], Export("OUTFILE", "f", "", lines_terminated="\n"))
    assert refused.value.code == 1235
    with pytest.raises(SQLError) as wrong:
        export_rows([(1,)], [True], Export("OUTFILE", "f", enclosed="ab"))
    assert wrong.value.code == 1083


def test_dumpfile_bytes():
    assert dump_rows([(1, "a\tb", None, b"\xff")]) == b"1a\tb\0\xff"
