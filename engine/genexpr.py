"""A generated column's expression as MariaDB prints it (SHOW CREATE TABLE,
information_schema.COLUMNS.GENERATION_EXPRESSION): MariaDB keeps the parsed expression and prints
it back (`Item::print`), not the text it was given: columns quoted `c`, function names in lower
case with their arguments one comma apart, operators between spaces and a parenthesis only where
precedence needs one, strings in single quotes with a quote written \\', != as <>, % as MOD,
AND / OR of non-conditions as `x <> 0`, UPPER as ucase and a few other names as MariaDB's
functions name themselves. `printed` reads the tokens of the expression (its literals by index
into the statement's values, numbers as their source text); a form it does not read is given
back as its tokens, one space apart (`TokenCursor.clause`'s text).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.lexer import Token

# binary operators: (precedence, as printed); MariaDB's precedences, lowest first
_BINARY = {
    "OR": (1, "or"), "||": (1, "or"), "XOR": (2, "xor"), "AND": (3, "and"), "&&": (3, "and"),
    "=": (5, "="), "<=>": (5, "<=>"), ">=": (5, ">="), ">": (5, ">"), "<=": (5, "<="), "<": (5, "<"),
    "<>": (5, "<>"), "!=": (5, "<>"), "|": (6, "|"), "&": (7, "&"), "<<": (8, "<<"), ">>": (8, ">>"),
    "+": (9, "+"), "-": (9, "-"), "*": (10, "*"), "/": (10, "/"), "DIV": (10, "DIV"), "%": (10, "MOD"),
    "MOD": (10, "MOD"), "^": (11, "^"),
}
_COMPARISON = 5
_UNARY = 12
_OPERAND = 100
# functions MariaDB prints under another name
_RENAMED = {"upper": "ucase", "lower": "lcase", "length": "octet_length", "substring": "substr", "mid": "substr",
            "character_length": "char_length"}


@dataclass(frozen=True)
class _Node:
    text: str
    prec: int = _OPERAND
    condition: bool = False  # a comparison or logical operation (AND / OR print it bare)


class _Unread(Exception):
    """A form the printer does not read."""


def quoted(value: str) -> str:
    """A string literal as MariaDB prints one in an expression."""
    escaped = value.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\r", "\\r")
    return "'" + escaped.replace("\0", "\\0").replace("\032", "\\Z") + "'"


def printed(tokens: Sequence[Token], params: Sequence[object], texts: Sequence[str]) -> str:
    """`tokens` (an expression, without its enclosing parentheses) as MariaDB prints it; `texts`
    the statement's literals' source texts (`lexer.literal_texts`), by index like `params`."""
    reader = _Reader(list(tokens), params, texts)
    try:
        node = reader.expression(0)
        if reader.i != len(reader.toks):
            raise _Unread
        return node.text
    except (_Unread, IndexError):
        return " ".join(_token_text(t, params, texts) for t in tokens)


def _token_text(tok: Token, params: Sequence[object], texts: Sequence[str]) -> str:
    if tok.kind == "param":
        value = params[tok.param]
        if isinstance(value, str) and tok.param < len(texts) and texts[tok.param][:1] in ("'", '"'):
            return quoted(value)
        if isinstance(value, bytes):
            return "X'" + value.hex() + "'"
        return texts[tok.param] if tok.param < len(texts) else str(value)
    if tok.kind == "ident":
        return "`" + tok.text.replace("`", "``") + "`"
    return tok.text


class _Reader:
    def __init__(self, toks: list[Token], params: Sequence[object], texts: Sequence[str]) -> None:
        self.toks = toks
        self.params = params
        self.texts = texts
        self.i = 0

    def peek(self) -> Token | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, *words: str) -> bool:
        tok = self.peek()
        if tok is not None and (tok.is_word(*words) or tok.kind == "op" and tok.text in words):
            self.i += 1
            return True
        return False

    def need(self, *words: str) -> None:
        if not self.take(*words):
            raise _Unread

    def expression(self, floor: int) -> _Node:
        left = self.prefix()
        while True:
            tok = self.peek()
            if tok is None:
                return left
            key = tok.upper if tok.kind == "word" else tok.text if tok.kind == "op" else ""
            if key in _BINARY:
                prec, shown = _BINARY[key]
                if prec <= floor:
                    return left
                self.i += 1
                right = self.expression(prec)
                left = self.binary(left, shown, prec, right)
            elif key in ("IS", "LIKE", "REGEXP", "RLIKE", "IN", "BETWEEN", "NOT") and _COMPARISON > floor:
                left = self.predicate(left)
            elif key == "COLLATE":
                self.i += 1
                name = self.peek()
                if name is None or name.kind not in ("word", "ident"):
                    raise _Unread
                self.i += 1
                left = _Node(f"{wrap(left, _UNARY + 1)} collate {name.text}", _UNARY + 1)
            else:
                return left

    @staticmethod
    def binary(left: _Node, shown: str, prec: int, right: _Node) -> _Node:
        if shown in ("and", "or"):
            left, right = as_condition(left), as_condition(right)
        return _Node(f"{wrap(left, prec)} {shown} {wrap(right, prec, right=True)}", prec, prec <= _COMPARISON)

    def predicate(self, left: _Node) -> _Node:
        negated = self.take("NOT")
        operand = wrap(left, _COMPARISON)
        if not negated and self.take("IS"):
            negated = self.take("NOT")
            self.need("NULL")
            return _Node(f"{operand} is {'not ' if negated else ''}null", _COMPARISON, True)
        tok = self.peek()
        if tok is None:
            raise _Unread
        self.i += 1
        word = tok.upper
        if word in ("LIKE", "REGEXP", "RLIKE"):
            right = wrap(self.expression(_COMPARISON), _COMPARISON, right=True)
            return _Node(f"{operand} {'not ' if negated else ''}{word.lower()} {right}", _COMPARISON, True)
        if word == "BETWEEN":
            low = wrap(self.expression(_COMPARISON), _COMPARISON)
            self.need("AND")
            high = wrap(self.expression(_COMPARISON), _COMPARISON)
            return _Node(f"{operand} {'not ' if negated else ''}between {low} and {high}", _COMPARISON, True)
        if word == "IN":
            items = self.arguments()
            if len(items) == 1:  # x IN (y) is x = y
                return _Node(f"{operand} {'<>' if negated else '='} {wrap(items[0], _COMPARISON, True)}",
                             _COMPARISON, True)
            listed = ",".join(item.text for item in items)
            return _Node(f"{operand} {'not ' if negated else ''}in ({listed})", _COMPARISON, True)
        raise _Unread

    def arguments(self) -> list[_Node]:
        self.need("(")
        items: list[_Node] = []
        if self.take(")"):
            return items
        while True:
            items.append(self.expression(0))
            if self.take(")"):
                return items
            self.need(",")

    def prefix(self) -> _Node:
        tok = self.peek()
        if tok is None:
            raise _Unread
        self.i += 1
        if tok.kind == "op" and tok.text in ("-", "~", "+"):
            operand = self.expression(_UNARY - 1)
            if tok.text == "+":
                return operand
            return _Node(tok.text + wrap(operand, _UNARY), _UNARY)
        if tok.kind == "op" and tok.text == "(":
            inner = self.expression(0)
            self.need(")")
            return inner
        if tok.is_word("NOT") or tok.kind == "op" and tok.text == "!":
            operand = self.expression(4)
            if operand.condition:
                return _Node(f"!({operand.text})", _UNARY, True)
            return _Node(f"{wrap(operand, _COMPARISON)} = 0", _COMPARISON, True)
        if tok.kind == "param":
            return _Node(_token_text(tok, self.params, self.texts))
        if tok.kind == "ident":
            return self.column(tok)
        if tok.kind != "word":
            raise _Unread
        word = tok.upper
        if word == "NULL":
            return _Node("NULL")
        if word in ("TRUE", "FALSE"):
            return _Node("1" if word == "TRUE" else "0")
        if word == "CASE":
            return self.case()
        nxt = self.peek()
        if nxt is not None and nxt.kind == "op" and nxt.text == "(":
            return self.call(tok.text.lower())
        return self.column(tok)

    def column(self, tok: Token) -> _Node:
        while self.take("."):  # t.c, db.t.c: MariaDB prints the column alone
            nxt = self.peek()
            if nxt is None or nxt.kind not in ("word", "ident"):
                raise _Unread
            self.i += 1
            tok = nxt
        return _Node("`" + tok.text.replace("`", "``") + "`")

    def call(self, name: str) -> _Node:
        if name == "cast":
            self.need("(")
            value = self.expression(0)
            self.need("AS")
            target = self.cast_type()
            self.need(")")
            return _Node(f"cast({value.text} as {target})")
        args = self.arguments()
        if name == "date" and len(args) == 1:
            return _Node(f"cast({args[0].text} as date)")
        return _Node(f"{_RENAMED.get(name, name)}({','.join(a.text for a in args)})")

    def cast_type(self) -> str:
        tok = self.peek()
        if tok is None or tok.kind != "word":
            raise _Unread
        self.i += 1
        word = tok.text.lower()
        if word in ("signed", "unsigned"):
            self.take("INTEGER", "INT")
            return word
        size = ""
        if self.take("("):
            parts = []
            while not self.take(")"):
                part = self.peek()
                if part is None:
                    raise _Unread
                self.i += 1
                parts.append(_token_text(part, self.params, self.texts))
            size = "(" + "".join(parts) + ")"
        if word == "char":
            return f"char{size} charset utf8mb4"
        return word + size

    def case(self) -> _Node:
        parts = ["case"]
        if not (self.peek() is not None and self.peek().is_word("WHEN")):
            parts.append(self.expression(0).text)
        while self.take("WHEN"):
            parts += ["when", self.expression(0).text]
            self.need("THEN")
            parts += ["then", self.expression(0).text]
        if self.take("ELSE"):
            parts += ["else", self.expression(0).text]
        self.need("END")
        return _Node(" ".join(parts + ["end"]))


def wrap(node: _Node, prec: int, right: bool = False) -> str:
    """`node` as an operand of an operator of precedence `prec` (the right one of a left to right
    operator parenthesized at the same precedence: a - (b - 1))."""
    return f"({node.text})" if node.prec < prec or right and node.prec == prec else node.text


def as_condition(node: _Node) -> _Node:
    """An operand of AND / OR: a condition as it is, anything else `x <> 0`, as MariaDB prints it."""
    if node.condition:
        return node
    return _Node(f"{wrap(node, _COMPARISON)} <> 0", _COMPARISON, True)
