"""MySQL lexical rules: the fast literal extractor (the shape cache's key) and the full tokenizer.

`extract(sql)` is on every statement's hot path: one regex pass that replaces each literal (string,
number, hex) by `?` and returns the statement's *shape* plus the literal values, decoded with
MySQL's rules (backslash escapes, doubled quotes). Everything else of the text (identifiers,
keywords, comments, spacing) stays in the shape verbatim, so two statements that differ only in
their literals share one translation. A bare `?` in the text is not MySQL (the text protocol has no
placeholders): it is refused with 1064 so that it can never be mistaken for a literal slot.

The pass has two implementations held equal by tests (`tests/unit/test_lexer_native.py`): the C
module `engine._lexer` (built by `pip install`, optional) and `_literals_py` here, the reference
and the fallback when the module was not built. `extract` uses the C one when it is there.

A 0x.. or b'..' / 0b.. literal is MariaDB's hybrid: a binary string where a string is read and an
unsigned integer where a number is (arithmetic, a comparison with a number, CAST to a number, a
number column's value); X'..' is a binary string everywhere. Its value is a `Hybrid` (bytes that
know their number), and the shape of a statement holding one ends with HYBRID_MARK, so that its
translations, which read each hybrid by its place (`translate.Translator.read_hybrids`), are never
those of a statement with other literals there (a text that writes the mark itself is told apart by
its plans' `literal_kinds`, which then hold every literal's kind). The C pass leaves a statement
with a hybrid to the Python one.

`tokenize(shape)` (slow path, once per shape) splits a shape into `Token`s for the translator.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from protocol.errors import ER_PARSE_ERROR, SQLError

try:
    from engine import _lexer as _native
except ImportError:  # not built (no C compiler at install): the Python pass
    _native = None

# `/*! ... */` and `/*!50100 ... */` are executable comments: MySQL runs their content. Quoted
# text and the other comments are matched first and kept whole (group 1): a `/*!` inside a string
# literal is the string's (`'/*!50000 x */'` stays those 13 characters).
_EXEC_COMMENT = re.compile(
    r"""(?=[`'"/\-\#])(`[^`]*(?:``[^`]*)*`|'[^'\\]*(?:(?:\\.|'')[^'\\]*)*'|"[^"\\]*(?:(?:\\.|"")[^"\\]*)*"
    |/\*(?!!).*?\*/|--(?=[ \t\r\n]|$)[^\n]*|\#[^\n]*)
    |/\*!\d*(.*?)\*/""",
    re.S | re.X,
)


def _unwrap(found: re.Match[str]) -> str:
    kept = found.group(1)
    return kept if kept is not None else " " + found.group(2) + " "


# Unrolled string loops and a leading first-character lookahead: most positions fail at once.
_LITERALS = re.compile(
    r"""
    (?=[`/\-\#'"xXbB0-9.?])
    (?:
    (?P<skip>`[^`]*(?:``[^`]*)*`|/\*.*?\*/|--(?=[ \t\r\n]|$)[^\n]*|\#[^\n]*)
    |(?P<str>'[^'\\]*(?:(?:\\.|'')[^'\\]*)*'|"[^"\\]*(?:(?:\\.|"")[^"\\]*)*")
    |(?<![\w$])(?P<hex>[xX]'[0-9a-fA-F]*'|0x[0-9a-fA-F]+(?![\w$]))
    |(?<![\w$])(?P<bits>[bB]'[01]*'|0b[01]+(?![\w$]))
    |(?:(?<![\w$.])|(?<=\.\.))(?P<num>(?:\d+(?:\.(?!\.)\d*)?|\.\d+)(?:[eE][-+]?\d+)?)(?![\w$])
    |(?P<qmark>\?)
    )
    """,
    re.S | re.X,
)

_ESCAPES = {
    "0": "\0", "'": "'", '"': '"', "b": "\b", "n": "\n", "r": "\r", "t": "\t",
    "Z": "\x1a", "\\": "\\", "%": "\\%", "_": "\\_",
}
# an escape, or the literal's own quote doubled (the other kind of quote stays as written)
_ESCAPE_RE = {"'": re.compile(r"\\(.)|''", re.S), '"': re.compile(r'\\(.)|""', re.S)}


def _unescape_match(m: re.Match[str]) -> str:
    ch = m.group(1)
    if ch is None:
        return m.group(0)[0]
    return _ESCAPES.get(ch, ch)


def decode_string(text: str) -> str:
    """A quoted MySQL string literal (with its quotes) -> its value."""
    body = text[1:-1]
    if "\\" not in body and text[0] * 2 not in body:
        return body
    return _ESCAPE_RE[text[0]].sub(_unescape_match, body)


# the digits a double holds exactly (DBL_DIG): a number with a point and more is a Decimal
EXACT_DIGITS = 15


class Digits(str):
    """A number literal past BIGINT, kept as its digits: MariaDB's BIGINT UNSIGNED literal, past
    that its DECIMAL one. A str (SQLite binds and stores it as the text it is) that says it was
    written as a number: a quoted string of the same digits is a plain str, which CAST, HEX and
    a negation read as a string (`exact.literal_kind` tells the two apart)."""

    __slots__ = ()


def decode_number(text: str) -> int | float | Decimal | str:
    """A number literal's value: with an exponent a float (MySQL's DOUBLE); with a point a float,
    or past EXACT_DIGITS digits its exact Decimal (MySQL's DECIMAL literal, which a float would
    round); without either an int, past BIGINT its `Digits`."""
    if "e" in text or "E" in text:
        return float(text)
    if "." in text:
        return Decimal(text) if len(text) - 1 > EXACT_DIGITS else float(text)
    n = int(text)
    # BIGINT UNSIGNED (and larger) literals are beyond SQLite's integers: kept as their digits,
    # as engine.values keeps such a stored value, never bound as an int SQLite refuses
    return n if n < 1 << 63 else Digits(text)


# ends the shape of a statement with a hybrid literal (a comment: the tokenizer skips it)
HYBRID_MARK = "\n/*hybrid*/"
class Hybrid(bytes):
    """The value of a 0x.. or b'..' / 0b.. literal: its bytes, and `number` where it is read as one."""

    __slots__ = ()

    @property
    def number(self) -> int | str:
        """Its last 8 bytes (MariaDB's) as an unsigned integer, past BIGINT its decimal digits (as
        `decode_number`'s)."""
        n = int.from_bytes(self[-8:], "big")
        return n if n < 1 << 63 else str(n)


def decode_hex(text: str) -> bytes:
    """X'..' (bytes) or 0x.. (a `Hybrid`): the digits as bytes, an odd count read with a leading 0."""
    hybrid = text[1] != "'"
    digits = text[2:] if hybrid else text[2:-1]
    if len(digits) % 2:
        digits = "0" + digits
    return Hybrid.fromhex(digits) if hybrid else bytes.fromhex(digits)


def decode_bits(text: str) -> Hybrid:
    """B'..' or 0b..: its bits as bytes, as few as hold them (none for no digits)."""
    digits = text[2:-1] if text[1] == "'" else text[2:]
    n = int(digits or "0", 2)
    return Hybrid(n.to_bytes((len(digits) + 7) // 8, "big"))


class SyntaxError_(SQLError):
    """1064, remembering the text it points at (a suffix of the shape: `?` for literals)."""

    def __init__(self, near: str, line: int = 1):
        self.near = near
        super().__init__(ER_PARSE_ERROR, _near_message(near, line))

    def with_literals(self, sql: str) -> SQLError:
        """The same error pointing into the original text (literals instead of `?`)."""
        count = self.near.count("?")
        if not count:
            return self
        texts = literal_texts(sql)[-count:] if count <= len(literal_texts(sql)) else []
        if not texts:
            return self
        pieces = self.near.split("?")
        near = pieces[0] + "".join(t + p for t, p in zip(texts, pieces[1:], strict=False))
        return SQLError(ER_PARSE_ERROR, _near_message(near))


def _near_message(near: str, line: int = 1) -> str:
    """ER_PARSE_ERROR's text: MariaDB's '%-.80T', a text past 80 characters cut to 77 and '...'."""
    near = near.split(HYBRID_MARK, 1)[0]
    near = near if len(near) <= 80 else near[:77] + "..."
    return ("check the manual that corresponds to your MariaDB server version for the right syntax "
            f"to use near '{near}' at line {line}")


def syntax_error(near: str, line: int = 1) -> SQLError:
    return SyntaxError_(near, line)


def extract(sql: str) -> tuple[str, list[object]]:
    """Statement text -> (shape with `?` per literal, literal values in order)."""
    if "/*!" in sql:
        sql = _EXEC_COMMENT.sub(_unwrap, sql)
    if _native is not None:
        found = _native.extract(sql)
        if found is not None:  # None: a bare `?`, which the Python pass reports, or a hybrid
            return found
    return _literals_py(sql)


def _extract_py(sql: str) -> tuple[str, list[object]]:
    """`extract` without the C module (the reference the tests hold it to)."""
    if "/*!" in sql:
        sql = _EXEC_COMMENT.sub(_unwrap, sql)
    return _literals_py(sql)


# what may stand between two strings that are one literal: MySQL's blanks, comments
_GAP = re.compile(r"(?:[ \t\n\r\f\v]+|/\*.*?\*/|--(?=[ \t\r\n])[^\n]*\n|\#[^\n]*\n)*", re.S)


def _literal_spans(sql: str) -> list[tuple[str, list[tuple[int, int]]]]:
    """(kind, spans) of each literal, in order: a string that follows a string with nothing but
    blanks and comments between is one literal with it ('a' 'b', MySQL's concatenation), one
    span each."""
    found: list[tuple[str, list[tuple[int, int]]]] = []
    for m in _LITERALS.finditer(sql):
        kind = m.lastgroup or ""
        if kind == "skip":
            continue
        if kind == "str" and found and found[-1][0] == "str" \
                and _GAP.fullmatch(sql, found[-1][1][-1][1], m.start()):
            found[-1][1].append(m.span())
            continue
        found.append((kind, [m.span()]))
    return found


def _literals_py(sql: str) -> tuple[str, list[object]]:
    params: list[object] = []
    parts: list[str] = []
    last = 0
    for kind, spans in _literal_spans(sql):
        start, end = spans[0][0], spans[-1][1]
        text = sql[start:end]
        if kind == "str":
            value: object = "".join(decode_string(sql[a:b]) for a, b in spans)
        elif kind == "num":
            value = decode_number(text)
        elif kind == "hex":
            value = decode_hex(text)
        elif kind == "bits":
            value = decode_bits(text)
        else:
            raise syntax_error(sql[start:])
        parts.append(sql[last:start])
        parts.append("?")
        params.append(value)
        last = end
    if not params:
        return sql, params
    parts.append(sql[last:])
    if any(type(v) is Hybrid for v in params):
        parts.append(HYBRID_MARK)
    return "".join(parts), params


def literal_texts(sql: str) -> list[str]:
    """The literals' source texts, in `extract`'s order (for result column names): adjacent
    strings ('a' 'b') one text, as they are one literal."""
    if "/*!" in sql:
        sql = _EXEC_COMMENT.sub(_unwrap, sql)
    return [sql[spans[0][0]:spans[-1][1]] for _, spans in _literal_spans(sql)]


def replace_literals(sql: str, texts: dict[int, str]) -> str:
    """`sql` with the literal of each index of `texts` (`extract`'s order) written as its text
    there (an executable comment's content taken out of it, as `extract` reads it)."""
    if "/*!" in sql:
        sql = _EXEC_COMMENT.sub(_unwrap, sql)
    parts: list[str] = []
    last = 0
    found = (m for m in _LITERALS.finditer(sql) if m.lastgroup != "skip")
    for n, m in enumerate(found):
        if n in texts:
            parts += (sql[last:m.start()], texts[n])
            last = m.end()
    parts.append(sql[last:])
    return "".join(parts)


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # word, ident (backticked/double-quoted identifier), param, var, sysvar, op
    text: str  # source text (for words: as written)
    param: int = -1  # index into the shape's literals, for kind == "param"
    start: int = 0  # span in the shape text
    end: int = 0

    @property
    def upper(self) -> str:
        return self.text.upper() if self.kind == "word" else ""

    def is_word(self, *words: str) -> bool:
        return self.kind == "word" and self.text.upper() in words


_TOKENS = re.compile(
    r"""
    (?P<ws>\s+|/\*.*?\*/|--(?=[ \t\r\n]|$)[^\n]*|\#[^\n]*)
    |(?P<ident>`(?:[^`]|``)*`)
    |(?P<param>\?)
    |(?P<sysvar>@@(?:[\w$.]+))
    |(?P<var>@(?:[\w$.]+|`(?:[^`]|``)*`))
    |(?P<word>[A-Za-z_$\x80-\U0010ffff][\w$\x80-\U0010ffff]*)
    # (an '@' before a string: an account's 'user'@'host', as a DEFINER names it)
    |(?P<op><=>|<=|>=|<>|!=|:=|\|\||&&|<<|>>|->>|->|[-+*/%=<>!~^&|(),.;:{}]|@(?=\?))
    """,
    re.S | re.X,
)


def tokenize(shape: str) -> list[Token]:
    tokens: list[Token] = []
    pos = 0
    nparam = 0
    end = len(shape)
    match = _TOKENS.match
    while pos < end:
        m = match(shape, pos)
        if m is None:
            raise syntax_error(shape[pos:])
        kind = m.lastgroup or ""
        text = m.group()
        pos = m.end()
        if kind == "ws":
            continue
        start = m.start()
        if kind == "ident":
            tokens.append(Token("ident", text[1:-1].replace("``", "`"), -1, start, pos))
        elif kind == "param":
            tokens.append(Token("param", "?", nparam, start, pos))
            nparam += 1
        elif kind == "var":
            name = text[1:]
            if name.startswith("`"):
                name = name[1:-1].replace("``", "`")
            tokens.append(Token("var", name, -1, start, pos))
        else:
            tokens.append(Token(kind, text, -1, start, pos))
    while tokens and tokens[-1].text == ";" and tokens[-1].kind == "op":
        tokens.pop()
    return tokens


_SYSVARS = re.compile(
    r"""(?P<skip>`[^`]*(?:``[^`]*)*`|/\*(?!!).*?\*/|--(?=[ \t\r\n]|$)[^\n]*|\#[^\n]*"""
    r"""|'[^'\\]*(?:(?:\\.|'')[^'\\]*)*'|"[^"\\]*(?:(?:\\.|"")[^"\\]*)*")"""
    r"""|(?P<sysvar>@@[\w$.]+)"""
    r"""|(?P<account>\b(?:CURRENT_USER|SESSION_USER|SYSTEM_USER|USER)\s*\(\s*\)|\bCURRENT_USER\b)""",
    re.S | re.I,
)


def inline_sysvars(sql: str, literal, account=None) -> str:
    """`sql` with every `@@variable` outside quotes and comments replaced by `literal(text)`,
    its value as MySQL literal text, and, given `account`, every USER() / CURRENT_USER() call by
    `account(text)` (statement-based replication must not let a slave read its own values)."""
    def sub(m: re.Match[str]) -> str:
        if m.lastgroup == "skip" or (m.lastgroup == "account" and account is None):
            return m.group()
        return literal(m.group()) if m.lastgroup == "sysvar" else account(m.group())
    return _SYSVARS.sub(sub, sql)


def quote_ident(name: str) -> str:
    """An identifier for SQLite."""
    return '"' + name.replace('"', '""') + '"'


def mysql_ident(name: str) -> str:
    """An identifier for MySQL output (SHOW CREATE TABLE)."""
    return "`" + name.replace("`", "``") + "`"
