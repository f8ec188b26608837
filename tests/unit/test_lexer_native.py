"""The compiled literal extractor (`engine._lexer`) against the Python pass it replaces
(`engine.lexer._literals_py`, the reference): the same shape, the same values of the same types,
and the same refusal of a bare `?`, on sysbench's statements, on corner cases of the pattern's
backtracking, and on random texts made of the characters the pattern decides on. A text with a
0x.. or bit literal (`lexer.Hybrid`) the compiled one leaves to the Python pass."""

from __future__ import annotations

import shutil
import sysconfig
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import lexer
from engine.lexer import SyntaxError_, _extract_py, _literals_py, extract

native = lexer._native


def typed(found: tuple[str, list[object]]) -> tuple[str, list[tuple[type, object]]]:
    shape, values = found
    return shape, [(type(v), v) for v in values]  # 1 == 1.0 == True: compare the types too


def reference(sql: str) -> tuple[str, list[tuple[type, object]]] | None:
    try:
        return typed(_literals_py(sql))
    except SyntaxError_:
        return None


def compiled(sql: str) -> tuple[str, list[tuple[type, object]]] | None:
    """The compiled pass's answer; where it leaves the text to the Python pass (None), that
    pass's when the text has a hybrid, else None (a bare `?`)."""
    assert native is not None
    found = native.extract(sql)
    if found is not None:
        return typed(found)
    passed = reference(sql)
    return passed if passed is not None and any(t is lexer.Hybrid for t, _ in passed[1]) else None


def test_the_module_is_built_where_a_c_compiler_is():
    if shutil.which(sysconfig.get_config_var("CC").split()[0]) is None:
        pytest.skip("no C compiler: the install has no engine._lexer, extract is the Python pass")
    assert native is not None, "pip install -e . left engine/_lexer.c unbuilt"
    assert Path(native.__file__).parent == Path(lexer.__file__).parent


C = "68487932199-96439406143-93774651418-41631865787-96406072701-20604855487-25459966574-28203206787-41238978918-19503783441"
PAD = "22195207048-70116052123-74140395089-76317954521-98694025897"

CASES = [
    f"INSERT INTO sbtest1 (id, k, c, pad) VALUES (0, 5012, '{C}', '{PAD}')",
    "UPDATE sbtest1 SET k=k+1 WHERE id=5012",
    "SELECT c FROM sbtest1 WHERE id BETWEEN 5012 AND 5111",
    "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN 1 AND 100 ORDER BY c",
    "SELECT 1",
    "SELECT @@version",
    "select 1.5e, 1.e5, 1., .5, 1.x, 1e5x, 1e+5, 1e-5x, 2E9, 0.0e0",
    "select 1.234567890123456, 1.2345678901234567, 123456789012345.6, .0000000000000001, 1234567890123456.e2",
    "select x'0f', X'', x'1', x'zz', 0x1F, 0x1g, 0X1F, b'101', B'', 0b11, 0b12, 0b",
    "select 'a\\nb''c', \"q\"\"\", 'a\"\"\\n', \"it's\", '\\%\\_\\Z\\0\\b\\r\\t\\x'",
    "select 18446744073709551615, 9223372036854775807, 9223372036854775808, 99999999999999999999999",
    "select `a``b`, `x 'not a string'`, `unterminated 'x'",
    "select 'a''", "select 'a''b\\", "select 'abc", "select 'a\\", "select `a``",
    "select 1 -- 'comment'\n, 2 --x, 3 #'c'\n, 4 /* '5' */ 6 /* 7",
    "select 1--2, a.1, a1, _1, $1, 1$, 1_000, 1a",
    "for i in 1..3 do, reverse n..5, 1...2, 1.5..2, x..y, 1.., ..5, 1 .. .5e1",
    "select '\u00e9\u20ac', 'plain', \u00e9 1, \u0663, 1\u0663, \u0663.5, 1.\u0663, '\U0001f600' 2",
    "select 'a' 'b', 'a'\"b\" 'c', _utf8mb4'a'\n\t'b', 'a' /* c */ 'b' -- c\n 'd' #c\n'e', 'a' --x\n 'b'",
    "select 'a' \f\v'b', x'41' 'b', 'a' x'41', 1 'b', 'a' 1 'b', 'a' /* 'b' 'c'",
    "select ?", "select 1, '?' , ?", "select `?`, '?', /* ? */ 1",
    "",
    "'", "\"", "`", "x'", "0x", "-", "--", "/*", "#",
]


@pytest.mark.skipif(native is None, reason="engine._lexer not built")
@pytest.mark.parametrize("sql", CASES)
def test_the_compiled_extractor_answers_as_the_python_pass(sql):
    assert compiled(sql) == reference(sql)


@pytest.mark.skipif(native is None, reason="engine._lexer not built")
def test_a_text_without_literals_is_its_own_shape():
    sql = "SELECT @@version"
    assert native.extract(sql)[0] is sql
    assert extract(sql) == (sql, [])


def test_a_bit_literal_is_a_hybrid_of_its_bits_on_both_paths():
    # its bytes, as few as hold its digits (MariaDB's binary string); its number past BIGINT is
    # its decimal digits, as a number's (SQLite binds no int past 2^63 - 1)
    sql = "select b'1" + "0" * 63 + "', 0b" + "1" * 64 + ", b'" + "1" * 63 + "', b'101'"
    found = extract(sql)[1]
    assert found == _extract_py(sql)[1] == [b"\x80" + b"\0" * 7, b"\xff" * 8, b"\x7f" + b"\xff" * 7, b"\x05"]
    assert [v.number for v in found] == ["9223372036854775808", "18446744073709551615", (1 << 63) - 1, 5]


def test_a_number_with_a_point_past_a_doubles_digits_is_exact_on_both_paths():
    # a double holds 15 digits (MySQL's DECIMAL literal keeps every one); an exponent is a DOUBLE
    sql = "select 1.23456789012345678901234567890123456789, 123456789012345.6, 12345678901234.5, 1.5, 1.2345678901234567e0"
    want = [Decimal("1.23456789012345678901234567890123456789"), Decimal("123456789012345.6"), 12345678901234.5,
            1.5, 1.2345678901234567]
    for values in (_extract_py(sql)[1], extract(sql)[1]):
        assert values == want and list(map(type, values)) == list(map(type, want))


def test_a_number_past_bigint_is_its_digits_marked_as_a_number_on_both_paths():
    # MariaDB's BIGINT UNSIGNED literal (and past it its DECIMAL one) is kept as its digits, a
    # `Digits`: a str still (SQLite binds it as its text) that CAST reads as a number, where a
    # quoted string of the same digits is a plain str, read as a string
    sql = "select 18446744073709551616, '18446744073709551616', 9223372036854775807, 9223372036854775808, -99999999999999999999"
    want = [(lexer.Digits, "18446744073709551616"), (str, "18446744073709551616"), (int, (1 << 63) - 1),
            (lexer.Digits, "9223372036854775808"), (lexer.Digits, "99999999999999999999")]
    for found in (_extract_py(sql), extract(sql)):
        assert typed(found)[1] == want


def test_a_range_of_numbers_is_two_numbers_on_both_paths():
    # a FOR loop's `1..3`: a point before another is no number's (MariaDB's lexer's DOT_DOT)
    for found in (extract("for i in 1..3 do"), _extract_py("for i in 1..3 do"), _extract_py("for i in n..5 do")):
        assert found[0].endswith("..? do") and found[1][-1] in (3, 5)
    assert extract("for i in 1..3 do") == ("for i in ?..? do", [1, 3])


def test_a_doubled_quote_of_the_other_kind_is_kept():
    # MySQL: inside '...' a "" is two characters (only '' reads as one), and the other way round
    assert _extract_py("select 'a\"\"\\n', \"b''\\t\"")[1] == ['a""\n', "b''\t"]
    assert extract("select 'a\"\"\\n', \"b''\\t\"")[1] == ['a""\n', "b''\t"]


def test_adjacent_strings_are_one_literal_on_both_paths():
    # MySQL's text_literal: strings with only blanks and comments between concatenate; a hex
    # literal or a number next to a string does not (the string is then an alias)
    sql = "select 'a' \"b\" 'c', _utf8mb4'a'\n'b' /* x */ 'c', x'41' 'b', 'it''s' # c\n ' ok'"
    for found in (extract(sql), _extract_py(sql)):
        assert found == ("select ?, _utf8mb4?, ? ?, ?", ["abc", "abc", b"A", "b", "it's ok"])
    assert lexer.literal_texts(sql) == ["'a' \"b\" 'c'", "'a'\n'b' /* x */ 'c'", "x'41'", "'b'",
                                        "'it''s' # c\n ' ok'"]


def test_a_bare_question_mark_is_1064_on_both_paths():
    with pytest.raises(SyntaxError_):
        extract("SELECT ?")
    with pytest.raises(SyntaxError_):
        _extract_py("SELECT ?")


def test_executable_comments_are_read_on_both_paths():
    sql = "CREATE TABLE t (a INT) /*!50100 ENGINE=InnoDB COMMENT='x' */"
    assert typed(extract(sql)) == typed(_extract_py(sql))
    assert extract(sql)[1] == ["x"]


@pytest.mark.parametrize("sql, shape, values", [
    ("INSERT INTO t VALUES ('/*!50000 x */', /*!50000 1 */)", "INSERT INTO t VALUES (?,   ?  )", ["/*!50000 x */", 1]),
    ('SELECT "a /*! b */", `c/*!d*/`', 'SELECT ?, `c/*!d*/`', ["a /*! b */"]),
    ("SELECT 'it''s /*!1 x */' /* it's */, 2 -- /*!3 y */\n", "SELECT ? /* it's */, ? -- /*!3 y */\n",
     ["it's /*!1 x */", 2]),
    ("SELECT /*!1 'a' */ # /*!2 b */", "SELECT   ?   # /*!2 b */", ["a"]),
])
def test_an_executable_comment_is_read_outside_quotes_and_comments_only(sql, shape, values):
    """A `/*!` inside a string literal, a quoted identifier or another comment is theirs, on both
    paths (MariaDB stores '/*!50000 x */' as those characters)."""
    assert extract(sql) == (shape, values)
    assert typed(_extract_py(sql)) == typed((shape, values))
    assert [lexer.extract(text)[1][0] for text in lexer.literal_texts(sql)] == values


ALPHABET = list("`'\"\\/*-#xXbB0123456789.?eE+ \t\n\r\f\v_$aZ%n") + ["\u00e9", "\u0663", "\u20ac", "\U0001f600", "\0"]


@pytest.mark.skipif(native is None, reason="engine._lexer not built")
@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=st.sampled_from(ALPHABET), max_size=40))
def test_random_texts_give_the_same_answer(sql):
    assert compiled(sql) == reference(sql)


@pytest.mark.skipif(native is None, reason="engine._lexer not built")
@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(CASES[:-10]), min_size=1, max_size=4).map(" ".join))
def test_statements_run_together_give_the_same_answer(sql):
    assert compiled(sql) == reference(sql)
