"""protocol.charsets: MySQL's latin1 both ways, the other character sets a Python codec maps as
MariaDB does (cp1251, koi8r, gbk, euckr ...), '?' for what a character set cannot hold, the
column definitions and rows a latin1 client is sent, the names a connection may take, and a
COM_QUERY read in the connection's character set (tests/integration/test_client_charsets_mariadb.py
holds the same against a live MariaDB)."""

from __future__ import annotations

import pytest

from protocol.charsets import (
    ASCII,
    BINARY,
    CHARSETS,
    LATIN1,
    UTF8MB3,
    UTF8MB4,
    charset_named,
    collation_charset,
    default_collation,
    introduced_charset,
    result_column,
    result_rows,
    unspoken_collation,
)
from protocol.errors import SQLError
from protocol.messages import ColumnDefinition, ComQuery, FieldType, decode_command
from protocol.packets import encode_text


def test_latin1_is_cp1252_with_its_five_holes_one_to_one() -> None:
    text = LATIN1.decode(bytes(range(256)))
    assert text[:0x80] == "".join(map(chr, range(0x80)))
    assert text[0x80] == "€" and text[0x8A] == "Š" and text[0x9F] == "Ÿ" and text[0xE9] == "é"
    assert [text[b] for b in (0x81, 0x8D, 0x8F, 0x90, 0x9D)] == ["\x81", "\x8d", "\x8f", "\x90", "\x9d"]
    assert text[0xA0:] == "".join(map(chr, range(0xA0, 0x100)))
    assert LATIN1.encode(text) == bytes(range(256))  # one to one


def test_what_a_charset_cannot_hold_is_a_question_mark() -> None:
    assert LATIN1.encode("café € 中 \x80") == b"caf\xe9 \x80 ? ?"
    assert ASCII.encode("café") == b"caf?"
    assert ASCII.encode(ASCII.decode(b"caf\xe9")) == b"caf\xe9"  # a byte that was not text goes back as it came
    assert UTF8MB4.encode("中") == "中".encode()


def test_wire_text_is_the_str_whose_wire_form_is_the_charset_s_bytes() -> None:
    assert encode_text(LATIN1.wire_text("Table 'nosuch_é' doesn't exist")) == b"Table 'nosuch_\xe9' doesn't exist"
    assert LATIN1.wire_text("ascii") == "ascii"
    assert BINARY.wire_text("é") == "é" and UTF8MB4.wire_text("é") == "é"


def test_a_latin1_client_s_column_definitions_say_latin1_in_latin1_characters() -> None:
    text = ColumnDefinition("é", FieldType.VAR_STRING, 45, 80, org_name="é", table="t")
    assert result_column(text, LATIN1) == ColumnDefinition(LATIN1.wire_text("é"), FieldType.VAR_STRING, 8, 20,
                                                           org_name=LATIN1.wire_text("é"), table="t")
    assert result_column(ColumnDefinition("m", charset=33, length=192), LATIN1).length == 64  # utf8mb3
    blob = ColumnDefinition("b", FieldType.BLOB, 63, 65535)
    assert result_column(blob, LATIN1) == blob
    assert result_column(text, BINARY).charset == 63 and result_column(text, BINARY).length == 20


def test_a_latin1_client_s_rows_hold_latin1_bytes_and_binary_columns_as_stored() -> None:
    columns = (ColumnDefinition("v", charset=45), ColumnDefinition("b", FieldType.BLOB, 63),
               ColumnDefinition("n", FieldType.LONG, 63))
    rows = [("café", "café", 1), ("abc", "abc", None), (None, b"\xff", 2)]
    assert result_rows(columns, rows, LATIN1) == [(b"caf\xe9", "café", 1), ("abc", "abc", None), (None, b"\xff", 2)]
    assert result_rows(columns, rows, BINARY) is rows


def test_the_names_a_connection_may_take() -> None:
    assert charset_named("LATIN1") is LATIN1 and charset_named("utf8").name == "utf8mb3"
    with pytest.raises(SQLError) as unknown:
        charset_named("nosuch")
    assert unknown.value.code == 1115 and unknown.value.message == "Unknown character set: 'nosuch'"
    with pytest.raises(SQLError) as utf16:
        charset_named("utf16")
    assert utf16.value.code == 1231
    assert collation_charset(8) == (LATIN1, "latin1_swedish_ci")
    assert collation_charset(224) == (UTF8MB4, "utf8mb4_unicode_ci")
    assert collation_charset(51) == (CHARSETS["cp1251"], "cp1251_general_ci")
    assert collation_charset(87) == (CHARSETS["gbk"], "gbk_bin")
    assert collation_charset(13) is None and unspoken_collation(13) == "sjis"  # (a login of it: 1115)
    assert unspoken_collation(51) is None and unspoken_collation(8) is None and unspoken_collation(300) is None
    assert default_collation(LATIN1) == "latin1_swedish_ci"


def test_a_com_query_is_read_in_the_connection_s_charset() -> None:
    payload = b"\x03INSERT INTO t VALUES ('caf\xe9 \x80')"
    assert decode_command(payload, LATIN1) == ComQuery("INSERT INTO t VALUES ('café €')")
    assert decode_command(payload) == ComQuery("INSERT INTO t VALUES ('caf\udce9 \udc80')")  # UTF-8, bytes kept


def test_a_longtext_keeps_its_length_in_every_character_set():
    """MariaDB caps a column's length at 4294967295 and a LONGTEXT's or JSON's stays that for a
    utf8mb3 or latin1 client; a TEXT's scales (65535 characters' bytes)."""
    longtext = ColumnDefinition("j", FieldType.BLOB, 45, 0xFFFFFFFF)
    assert result_column(longtext, LATIN1).length == 0xFFFFFFFF
    assert result_column(longtext, UTF8MB3).length == 0xFFFFFFFF
    assert result_column(ColumnDefinition("t", FieldType.BLOB, 45, 262140), UTF8MB3).length == 196605


def test_the_codec_charsets_read_and_write_their_bytes() -> None:
    cp1251, gbk, euckr, koi8r = (CHARSETS[name] for name in ("cp1251", "gbk", "euckr", "koi8r"))
    assert cp1251.decode(b"\xcf\xf0\xe8\xe2\xe5\xf2") == "Привет" and cp1251.encode("Ёж €") == b"\xa8\xe6 \x88"
    assert cp1251.decode(b"a\x98b") == "a\udc98b"  # a byte cp1251 has not: kept, for the engine's 1366
    assert cp1251.encode(cp1251.decode(b"a\x98b")) == b"a\x98b"
    assert cp1251.encode("中 é 😀") == b"? ? ?"
    assert gbk.decode(b"\xd6\xd0\xce\xc4") == "中文" and gbk.encode("中文 ж é") == b"\xd6\xd0\xce\xc4 \xa7\xd8 \xa8\xa6"
    assert gbk.encode("€😀") == b"??"
    assert euckr.decode(b"\x81\x41") == "갂"  # MariaDB's euckr is cp949
    assert koi8r.encode("Съешь") == b"\xf3\xdf\xc5\xdb\xd8"
    assert (cp1251.number, cp1251.mbmaxlen, gbk.number, gbk.mbmaxlen) == (51, 1, 28, 2)


def test_a_codec_charset_client_s_column_definitions_say_its_number_and_its_maxlen() -> None:
    text = ColumnDefinition("Ж", FieldType.VAR_STRING, 45, 80, org_name="Ж", table="t")
    cp1251, gbk = CHARSETS["cp1251"], CHARSETS["gbk"]
    assert result_column(text, cp1251) == ColumnDefinition("\udcc6", FieldType.VAR_STRING, 51, 20,
                                                           org_name="\udcc6", table="t")
    assert result_column(text, gbk).charset == 28 and result_column(text, gbk).length == 40
    assert result_column(ColumnDefinition("g", charset=28, length=40), cp1251).length == 20
    columns = (ColumnDefinition("v", charset=45), ColumnDefinition("b", FieldType.BLOB, 63))
    assert result_rows(columns, [("中文", "中文")], gbk) == [(b"\xd6\xd0\xce\xc4", "中文")]


def test_the_charsets_a_connection_may_name_and_those_it_may_not() -> None:
    assert charset_named("CP1251") is CHARSETS["cp1251"] and charset_named("gbk").codec == "gbk"
    assert default_collation(CHARSETS["koi8r"]) == "koi8r_general_ci"
    for name in ("sjis", "big5", "cp932", "ujis", "greek", "hebrew", "koi8u", "cp866", "cp1256", "swe7"):
        with pytest.raises(SQLError) as refused:
            charset_named(name)
        assert refused.value.code == 1115, name
    assert introduced_charset("_CP1251") is CHARSETS["cp1251"] and introduced_charset("_latin1") is LATIN1
    assert introduced_charset("_ascii") is None and introduced_charset("_utf8mb4") is None
    assert introduced_charset("_binary") is None and introduced_charset("N") is None


def test_a_com_query_is_read_in_a_codec_charset() -> None:
    assert decode_command(b"\x03SELECT '\xcf\xf0'", CHARSETS["cp1251"]) == ComQuery("SELECT 'Пр'")
    assert decode_command(b"\x03SELECT '\xd6\xd0'", CHARSETS["gbk"]) == ComQuery("SELECT '中'")
