"""utf8mb4_general_ci (engine.collation): the reference comparison's rules, and the compiled twin
(engine/_collation.c) held equal to it, through SQLite, on the same texts."""

from __future__ import annotations

import functools
import random
import sqlite3

import pytest

from engine import collation
from engine.collation import GENERAL_CI, compare, weight

native = pytest.importorskip("engine._collation")

TEXTS = ["", " ", "  ", "a", "A", "a ", "a  ", "a\t", "a\tb", "a b", "ab", "AB  ", "äb", "Äb", "ab\x00",
         "é", "e", "E", "ß", "s", "ss", "Straße", "STRASSE", "strase", "й", "и", "Й", "ё", "е", "😀", "🙂",
         "\ufffd", "a😀", "a\ufffd", "Ǖ", "u", "ı", "i", "I", "İ", "µ", "Μ", "ǅ", "ǆ", "Ǆ", "z", "\x7f", "\xa0"]


def test_weights_follow_the_rules():
    assert [chr(weight(ord(c))) for c in "aAéÉäÅçñøæÿ"] == list("AAEEAACNØÆY")
    assert weight(ord("ß")) == ord("S") and weight(ord("й")) == ord("Й") and weight(ord("ё")) == ord("Е")
    assert weight(0x1F600) == 0xFFFD and weight(ord(" ")) == 0x20
    assert weight(0xAC00) == 0xAC00  # a Hangul syllable is not its jamo


def test_pad_space_and_order():
    assert compare("a", "A") == 0 and compare("ab", "AB  ") == 0 and compare("é", "E") == 0
    assert compare("a\t", "a") == -1 and compare("a", "a\t") == 1  # a tab sorts below the padding
    assert compare("a  b", "a") == 1 and compare("a", "b") == -1 and compare("😀", "🙂") == 0
    assert compare("ss", "ß") == 1  # one character against two: 'S' = 'S', then 's' against a space


def _sorted_by(conn: sqlite3.Connection) -> list[list[int]]:
    conn.execute("CREATE TEMP TABLE t (n INTEGER, v TEXT COLLATE " + GENERAL_CI + ")")
    conn.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(TEXTS)))
    pairs = conn.execute("SELECT a.n, b.n, a.v = b.v, a.v < b.v FROM t a, t b ORDER BY a.n, b.n").fetchall()
    order = [n for (n,) in conn.execute("SELECT n FROM t ORDER BY v, n")]
    groups = conn.execute("SELECT group_concat(n) FROM (SELECT n, v FROM t ORDER BY n) GROUP BY v ORDER BY min(n)").fetchall()
    return [pairs, order, groups]


def test_compiled_equals_reference_through_sqlite():
    compiled = sqlite3.connect(":memory:")
    assert collation.register(compiled)  # the compiled one is reachable on this CPython
    reference = sqlite3.connect(":memory:")
    reference.create_collation(GENERAL_CI, compare)
    answers = _sorted_by(compiled)
    assert answers == _sorted_by(reference)
    expected = sorted(range(len(TEXTS)), key=lambda n: (functools.cmp_to_key(compare)(TEXTS[n]), n))
    assert answers[1] == expected


def test_compiled_equals_reference_on_random_texts():
    rng = random.Random(7)
    alphabet = "aAbB éÉèäÄßsS\t\x00zZ😀🙂йЙиёЕ\ufffd\u0300"
    for _ in range(5000):
        a = "".join(rng.choice(alphabet) for _ in range(rng.randrange(6)))
        b = "".join(rng.choice(alphabet) for _ in range(rng.randrange(6)))
        assert native.compare(a.encode(), b.encode()) == compare(a, b), (a, b)


def test_compiled_reads_bad_utf8_as_replacement_characters():
    # (SQLite hands a collation the bytes as stored; the engine stores only valid UTF-8 text)
    assert native.compare(b"a\xff", "a\ufffd".encode()) == 0
    assert native.compare(b"\xe2\x82", "\ufffd\ufffd".encode()) == 0  # a cut sequence: one byte each
    assert native.compare(b"\xc0\xaf", "\ufffd\ufffd".encode()) == 0  # overlong


def test_like_range_holds_every_match():
    """Whatever `pattern` matches (the engine's LIKE, escape '\\') lies in [low, high) under the
    collation: the bounds an index search adds to `col LIKE pattern`."""
    conn = sqlite3.connect(":memory:")
    collation.register(conn)
    rng = random.Random(11)
    alphabet = "aAbB éÉ\t\x00zZ%_\\ß😀"
    checked = 0
    for _ in range(3000):
        pattern = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 5))) + rng.choice(["%", "", "_%"])
        bounds = collation.like_range(pattern)
        if bounds is None:
            continue
        low, high = bounds
        for _ in range(10):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(8)))
            if rng.random() < 0.5:  # mostly texts that match: the pattern's prefix, maybe recased
                text = pattern.split("%")[0].replace("\\", "").replace("_", "x").swapcase() + text
            (match,), = conn.execute("SELECT ? LIKE ? ESCAPE '\\'", (text, pattern)).fetchall()
            if match:
                checked += 1
                assert compare(low, text) < 0 < compare(high, text), (pattern, text, bounds)
    assert checked > 1000
    assert collation.like_range("%ab") is None and collation.like_range("ab%") == ("aA", "aC")
    assert collation.like_range("a\\%%") == ("a$", "a&")  # an escaped wildcard is literal


def test_like_matches_by_weight_without_padding():
    like = collation.like
    assert like("ab%", "ÄB c") == 1 and like("s", "ß") == 1 and like("e", "É") == 1
    assert like("ab", "ab ") == 0 and like("ab ", "ab") == 0  # no PAD SPACE in LIKE
    assert like("a\\%%", "a%b", "\\") == 1 and like("a\\%%", "ab", "\\") == 0
    assert like("_", "😀") == 1 and like("😀", "🙂") == 1 and like("_", "") == 0 and like("%", "") == 1
    assert like(b"ab%", b"AB") == 0 and like(b"AB%", b"ABc") == 1  # byte strings: byte for byte
    assert like(None, "a") is None and like("a", None) is None
    like_bin = collation.like_bin
    assert like_bin("ab%", "ABc") == 0 and like_bin("ab%", "abC") == 1 and like_bin("e", "é") == 0
    assert like_bin("_", "é") == 1 and like_bin("_", "😀") == 1  # one character, not one byte


def test_compiled_like_equals_reference_through_sqlite():
    compiled = sqlite3.connect(":memory:")
    assert collation.register(compiled)
    reference = sqlite3.connect(":memory:")
    reference.create_function("like", 2, collation.like, deterministic=True)
    reference.create_function("like", 3, collation.like, deterministic=True)
    reference.create_function("mysql_like_bin", 2, collation.like_bin, deterministic=True)
    reference.create_function("mysql_like_bin", 3, collation.like_bin, deterministic=True)
    rng = random.Random(5)
    alphabet = "aAbB éÉ\t\x00zZ%_\\ßs😀🙂й"
    cases = []
    for _ in range(4000):
        pattern = "".join(rng.choice(alphabet) for _ in range(rng.randrange(6)))
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(7)))
        cases.append((text, pattern))
    sql = ("SELECT ? LIKE ?, ? LIKE ? ESCAPE '\\', CAST(? AS BLOB) LIKE CAST(? AS BLOB) ESCAPE '\\', "
           "mysql_like_bin(?2, ?1, '\\'), mysql_like_bin(?2, ?1)")
    for text, pattern in cases:
        args = (text, pattern) * 3
        assert compiled.execute(sql, args).fetchall() == reference.execute(sql, args).fetchall(), (text, pattern)
    assert compiled.execute("SELECT 1 LIKE 1, NULL LIKE 'a', 'a' LIKE 'A' ESCAPE 'é'").fetchall() == [(1, None, 1)]
    with pytest.raises(sqlite3.OperationalError, match="ESCAPE"):
        compiled.execute("SELECT 'a' LIKE 'a' ESCAPE 'ab'").fetchall()
