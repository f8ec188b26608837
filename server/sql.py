"""Just enough SQL text handling for the server shell: the leading keyword, multi-statement
splitting and a tokenizer for the admin statements.

Contract
- `head(sql)` is the hot-path dispatch key: the first two words upper-cased, joined by a space
  (one regex match; comments before or after the first word are skipped on a slower path). It
  never raises.
- `split_statements(sql)` splits on `;` outside quotes, backticks and comments, drops empty
  pieces, and is only used when the client enabled CLIENT_MULTI_STATEMENTS; a 1064 in one of
  the pieces quotes the packet on past the piece (`in_packet`), as mysqld's.
- `names_a_table(sql)` and `limits_itself(sql)` look at a statement only where a session's
  state asks (warnings to keep, a sql_select_limit to apply), never on the hot path.
- `tokenize(sql)` turns an admin statement into `Token`s; a string the tokenizer cannot read
  raises SQLError(ER_PARSE_ERROR) with mysqld's "near '...' at line 1" wording.
The engine parses everything else; nothing here interprets DML.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from protocol.errors import ER_PARSE_ERROR, SQLError

_HEAD = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_$]*)(?:\s+([A-Za-z0-9_$]+))?")
_WORD = re.compile(r"([A-Za-z0-9_$]+)")
_COMMENT_NEXT = re.compile(r"\s*(?:/\*(?![!+])|#|--\s)")
_COMMENTS = re.compile(r"(?:\s+|/\*(?![!+]).*?\*/|(?:--\s|#)[^\n]*(?:\n|$))*", re.DOTALL)


def head(sql: str) -> str:
    """'SHOW MASTER' for 'show master status'; '' when the text has no leading word."""
    m = _HEAD.match(sql)
    if m is None:
        skip = _COMMENTS.match(sql)
        if skip is None or not skip.end():
            return ""
        m = _HEAD.match(sql, skip.end())
        if m is None:
            return ""
    first, second = m.groups()
    if second is None:
        # a comment between the first two words (pt-variable-advisor's SHOW /*40003 GLOBAL*/ VARIABLES)
        if _COMMENT_NEXT.match(sql, m.end()) and (n := _WORD.match(sql, _COMMENTS.match(sql, m.end()).end())):
            return f"{first.upper()} {n.group(1).upper()}"
        return first.upper()
    return f"{first.upper()} {second.upper()}"


_VERSIONED = re.compile(r"/\*(M?)!(\d{5,6})?")


def unwrap_comments(sql: str, server_version: int) -> str:
    """The statement as a server of `server_version` (e.g. 101199 for 10.11.99) reads it:
    plain comments dropped, executable comments (`/*!40101 SET NAMES utf8 */`, MariaDB's
    `/*M!100616 ... */`, as mysqldump writes them) unwrapped when their version is not above
    ours and dropped otherwise. Quoted text is kept as is."""
    out: list[str] = []
    i = 0
    n = len(sql)
    start = 0
    while i < n:
        ch = sql[i]
        if ch in "'\"`":
            i += 1
            while i < n and sql[i] != ch:
                i += 2 if sql[i] == "\\" and ch != "`" else 1
            i += 1
            continue
        if ch == "#" or (ch == "-" and sql.startswith("--", i) and (i + 2 >= n or sql[i + 2] in " \t\n\r")):
            out.append(sql[start:i])
            nl = sql.find("\n", i)
            i = start = n if nl < 0 else nl
            continue
        if ch == "/" and sql.startswith("/*", i):
            out.append(sql[start:i])
            end = sql.find("*/", i + 2)
            end = n if end < 0 else end
            m = _VERSIONED.match(sql, i)
            if m is not None and (m.group(2) is None or int(m.group(2)) <= server_version):
                out.append(" " + unwrap_comments(sql[m.end():end], server_version) + " ")
            else:
                out.append(" ")
            i = start = end + 2
            continue
        i += 1
    out.append(sql[start:])
    return "".join(out).strip().rstrip(";").strip()


def is_blank(sql: str) -> bool:
    """Only whitespace and comments."""
    m = _COMMENTS.match(sql)
    return m is not None and m.end() == len(sql)


_COMPOUND_TRIGGER = re.compile(r"\s*CREATE\b.*?\b(?:TRIGGER\b.*?\bFOR\s+EACH\s+ROW|PROCEDURE|FUNCTION)\b",
                               re.I | re.S)
# a block's words: BEGIN and CASE open one, END and END CASE close it (END IF / WHILE / LOOP /
# REPEAT / FOR close what opened no block)
_BLOCK_WORD = re.compile(r"\b(BEGIN|CASE|END(?:\s+(?:IF|WHILE|LOOP|REPEAT|FOR|CASE)\b)?)\b", re.I)


def _inside_compound(piece: str) -> bool:
    """`piece` (a statement so far) is a CREATE TRIGGER / PROCEDURE / FUNCTION whose BEGIN ...
    END is still open: its `;` end the body's statements, not it (an approximation: the block
    words counted as words)."""
    if _COMPOUND_TRIGGER.match(piece) is None:
        return False
    depth = 0
    for m in _BLOCK_WORD.finditer(piece):
        word = m.group(1).upper()
        depth += 1 if word in ("BEGIN", "CASE") else -1 if word == "END" or word.endswith("CASE") else 0
    return depth > 0


def split_statements(sql: str) -> list[str]:
    """Split a multi-statement string on `;` outside quotes and comments."""
    out: list[str] = []
    start = 0
    i = 0
    n = len(sql)
    while i < n:
        ch = sql[i]
        if ch in "'\"`":
            i += 1
            while i < n:
                c = sql[i]
                if c == "\\" and ch != "`":
                    i += 2
                    continue
                if c == ch:
                    if i + 1 < n and sql[i + 1] == ch:  # doubled quote
                        i += 2
                        continue
                    break
                i += 1
        elif ch == "#" or (ch == "-" and sql.startswith("-- ", i)) or (ch == "-" and sql[i:i + 3] in ("--\n", "--\t", "--")):
            nl = sql.find("\n", i)
            i = n if nl < 0 else nl
        elif ch == "/" and sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            i = n if end < 0 else end + 1
        elif ch == ";" and not _inside_compound(sql[start:i]):
            piece = sql[start:i]
            if not is_blank(piece):
                out.append(piece.strip())
            start = i + 1
        i += 1
    piece = sql[start:]
    if not is_blank(piece):
        out.append(piece.strip())
    return out


# -- tokenizer for admin statements -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # WORD, STRING, NUMBER, SYSVAR, USERVAR, OP, QUOTED (backticks)
    text: str  # WORD: as written; STRING/QUOTED: unquoted value; SYSVAR: "scope.name" parts
    value: object = None  # NUMBER: int/float; SYSVAR: (scope or None, name); USERVAR: name
    pos: int = 0  # offset in the statement (for "near '...'" in syntax errors)

    @property
    def upper(self) -> str:
        return self.text.upper()

    def is_word(self, *words: str) -> bool:
        return self.kind == "WORD" and self.text.upper() in words


_TOKEN = re.compile(
    r"""
    (?P<ws>\s+|/\*(?![!+]).*?\*/|(?:--\s|\#)[^\n]*)
  | (?P<sysvar>@@(?:(?i:global|session|local)\.)?(?:`[^`]+`|[A-Za-z0-9_$]+))
  | (?P<uservar>@(?:`[^`]+`|'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*"|[A-Za-z0-9_$.]+))
  | (?P<number>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![A-Za-z_$])|0x[0-9A-Fa-f]+)
  | (?P<string>'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*")
  | (?P<quoted>`(?:[^`]|``)*`)
  | (?P<word>[A-Za-z_$][A-Za-z0-9_$]*)
  | (?P<op>:=|<=>|<>|!=|<=|>=|[=,().*;<>+\-/%])
    """,
    re.VERBOSE | re.DOTALL,
)
_ESCAPES = {"0": "\0", "b": "\b", "n": "\n", "r": "\r", "t": "\t", "Z": "\x1a"}


def unquote(text: str) -> str:
    q = text[0]
    body = text[1:-1]
    if q == "`":
        return body.replace("``", "`")
    body = body.replace(q + q, q)
    if "\\" not in body:
        return body
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body, flags=re.DOTALL)


NEAR_LENGTH = 80  # the most of the text a 1064 quotes
_NEAR = re.compile(r"to use near '(.*)' at line 1$", re.DOTALL)


def near_text(exc: SQLError) -> str | None:
    """The text a 1064 `exc` quotes, None for another error."""
    m = _NEAR.search(exc.message) if exc.code == ER_PARSE_ERROR.code else None
    return None if m is None else m.group(1)


def in_packet(exc: SQLError, sql: str, statements: list[str], i: int) -> SQLError:
    """`exc` from `statements[i]`, one of the pieces `split_statements(sql)` gave: a 1064 that
    quotes the piece to its end quotes on into the statements after it, as mysqld's, which
    parses the packet in place ('SELEC 2; SELECT 3' near 'SELEC 2; SELECT 3')."""
    near = near_text(exc)
    if near is None or len(near) >= NEAR_LENGTH or not statements[i].endswith(near):
        return exc
    end = 0
    for statement in statements[:i + 1]:
        end = sql.find(statement, end) + len(statement)
    return parse_error(sql, end - len(near))


def parse_error(sql: str, pos: int) -> SQLError:
    near = sql[pos:pos + NEAR_LENGTH]
    return SQLError(
        ER_PARSE_ERROR,
        f"check the manual that corresponds to your MariaDB server version for the right syntax "
        f"to use near '{near}' at line 1",
    )


def iter_tokens(sql: str, pos: int = 0) -> Iterator[Token]:
    """The tokens of `sql` from `pos` on, one at a time (a caller may stop before a part it
    does not read)."""
    n = len(sql)
    while pos < n:
        m = _TOKEN.match(sql, pos)
        if m is None:
            raise parse_error(sql, pos)
        kind = m.lastgroup
        text = m.group()
        start, pos = pos, m.end()
        if kind == "ws":
            continue
        if kind == "sysvar":
            body = text[2:]
            scope = None
            low = body.lower()
            for prefix in ("global.", "session.", "local."):
                if low.startswith(prefix):
                    scope = prefix[:-1].upper()
                    if scope == "LOCAL":
                        scope = "SESSION"
                    body = body[len(prefix):]
                    break
            name = unquote(body) if body.startswith("`") else body
            yield Token("SYSVAR", text, (scope, name.lower()), start)
        elif kind == "uservar":
            body = text[1:]
            name = unquote(body) if body[0] in "`'\"" else body
            yield Token("USERVAR", text, name.lower(), start)
        elif kind == "number":
            if text.lower().startswith("0x"):
                value: object = int(text, 16)
            elif re.fullmatch(r"\d+", text):
                value = int(text)
            else:
                value = float(text)
            yield Token("NUMBER", text, value, start)
        elif kind == "string":
            yield Token("STRING", unquote(text), None, start)
        elif kind == "quoted":
            yield Token("QUOTED", unquote(text), None, start)
        elif kind == "word":
            yield Token("WORD", text, None, start)
        else:
            yield Token("OP", text, None, start)


def tokenize(sql: str) -> list[Token]:
    tokens = list(iter_tokens(sql))
    while tokens and tokens[-1].kind == "OP" and tokens[-1].text == ";":
        tokens.pop()
    return tokens


def top_level_cuts(items: list[Token], start: int, stop_word: str | None = None) -> list[int]:
    """The indexes of the commas outside parentheses from `start` on, then the index where the
    list ends: the end of `items`, or the first `stop_word` outside parentheses."""
    cuts = []
    depth = 0
    for i in range(start, len(items)):
        tok = items[i]
        if tok.kind == "OP":
            if tok.text == "(":
                depth += 1
            elif tok.text == ")":
                depth -= 1
            elif tok.text == "," and depth == 0:
                cuts.append(i)
        elif depth == 0 and stop_word is not None and tok.is_word(stop_word):
            cuts.append(i)
            return cuts
    cuts.append(len(items))
    return cuts


def names_a_table(sql: str) -> bool:
    """Whether `sql` reads a table: a FROM of a SELECT (the statement's or one in parentheses)
    followed by anything but DUAL. A FROM inside a function's parentheses (EXTRACT, TRIM,
    SUBSTRING) names none; text the tokenizer cannot read counts as naming one."""
    try:
        tokens = tokenize(sql)
    except SQLError:
        return True
    selects = [False]  # per parenthesis depth: whether that group is a SELECT
    for i, tok in enumerate(tokens):
        if tok.kind == "OP":
            if tok.text == "(":
                selects.append(False)
            elif tok.text == ")" and len(selects) > 1:
                selects.pop()
        elif tok.is_word("SELECT"):
            selects[-1] = True
        elif tok.is_word("FROM") and selects[-1]:
            following = tokens[i + 1] if i + 1 < len(tokens) else None
            if following is None or not following.is_word("DUAL"):
                return True
    return False


def limits_itself(sql: str) -> bool:
    """Whether a SELECT has its own row limit: LIMIT (or FETCH FIRST/NEXT) outside parentheses,
    which sql_select_limit then leaves alone, as MariaDB's."""
    depth = 0
    try:
        for tok in iter_tokens(sql):
            if tok.kind == "OP":
                depth += (tok.text == "(") - (tok.text == ")")
            elif depth == 0 and tok.is_word("LIMIT", "FETCH"):
                return True
    except SQLError:
        return False
    return False


class Tokens:
    """A cursor over tokens with the few helpers the admin parsers need."""

    def __init__(self, sql: str, items: list[Token] | None = None) -> None:
        self.sql = sql
        self.items = tokenize(sql) if items is None else items  # (`items`: a part of the text's)
        self.i = 0

    def peek(self, k: int = 0) -> Token | None:
        j = self.i + k
        return self.items[j] if j < len(self.items) else None

    def next(self) -> Token:
        tok = self.peek()
        if tok is None:
            raise self.error()
        self.i += 1
        return tok

    def at_end(self) -> bool:
        return self.i >= len(self.items)

    def accept_word(self, *words: str) -> str | None:
        tok = self.peek()
        if tok is not None and tok.is_word(*words):
            self.i += 1
            return tok.upper
        return None

    def expect_word(self, *words: str) -> str:
        got = self.accept_word(*words)
        if got is None:
            raise self.error()
        return got

    def accept_op(self, *ops: str) -> str | None:
        tok = self.peek()
        if tok is not None and tok.kind == "OP" and tok.text in ops:
            self.i += 1
            return tok.text
        return None

    def expect_op(self, *ops: str) -> str:
        got = self.accept_op(*ops)
        if got is None:
            raise self.error()
        return got

    def expect_end(self) -> None:
        if not self.at_end():
            raise self.error()

    def events_range(self, first: str) -> tuple[str, int, int | None, int]:
        """SHOW BINLOG / RELAYLOG EVENTS' `[IN 'file'] [FROM pos] [LIMIT [offset,] count]` to the
        statement's end: (file, `first` without IN; position, 4 without FROM; count, None
        without LIMIT; offset)."""
        name, start, limit, offset = first, 4, None, 0
        if self.accept_word("IN"):
            name = self.name()
        if self.accept_word("FROM"):
            start = self.integer()
        if self.accept_word("LIMIT"):
            limit = self.integer()
            if self.accept_op(","):
                offset, limit = limit, self.integer()
        self.expect_end()
        return name, start, limit, offset

    def integer(self) -> int:
        """A whole number (a LIMIT's, IGNORE n LINES')."""
        tok = self.next()
        if tok.kind != "NUMBER" or not isinstance(tok.value, int):
            self.i -= 1
            raise self.error()
        return tok.value

    def name(self) -> str:
        """An identifier, backtick-quoted identifier or string (user names, hosts, plugins)."""
        tok = self.next()
        if tok.kind in ("WORD", "QUOTED", "STRING"):
            return tok.text
        self.i -= 1
        raise self.error()

    def error(self) -> SQLError:
        """ER_PARSE_ERROR near the current token."""
        if self.at_end():
            return SQLError(
                ER_PARSE_ERROR,
                "check the manual that corresponds to your MariaDB server version for the right "
                "syntax to use near '' at line 1",
            )
        return parse_error(self.sql, self.items[self.i].pos)
