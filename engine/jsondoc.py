"""JSON documents as MariaDB 10.11's json_lib reads and writes them, for the JSON functions
that edit a document in place (JSON_ARRAY_APPEND, JSON_ARRAY_INSERT, JSON_SET, JSON_INSERT,
JSON_REPLACE) and those that read, compare or rewrite one (JSON_SEARCH, JSON_CONTAINS_PATH,
JSON_QUERY, JSON_NORMALIZE, JSON_DETAILED, JSON_MERGE ...).

`parse` reads a document into lists (arrays), `Members` (objects, their keys kept as written,
duplicates too) and `Raw` scalars (numbers, strings with their escapes, true / false / null,
each as written), so that what a function leaves alone comes out as it came in; `text` writes
a value back as MariaDB's json_nice does in its LOOSE format (", " between items, ": " after a
key), which is what every MariaDB JSON function that edits a document returns. A document that
is not JSON raises `JsonError` with json_lib's reason and position (the character count where
its scanner stopped: after a character it took and found wrong, at a character a literal, a
number or a key's closing part refused), from which the caller words MariaDB's warning; what
json_lib accepts and a strict reader would not ('[-]', '[1.]', '["\\x"]') is accepted here too.

`parse_path` reads a JSON path as json_lib's path scanner does (`lax`, `$`, `.key`, `."key"`,
`[n]`, `[last]`, `[last-n]`, `[-n]`; the wildcards `.*`, `[*]`, `**` and ranges `[a to b]`
are read and marked, the editing functions refuse them with 4044); `JsonPathError` carries
its reason and position. `find` follows a path without wildcards in lax mode: `[0]` of a value
that is not an array is the value itself; `matches` follows one with them, to every value it
reaches. `parse_spans` keeps each array's and object's text as written (JSON_QUERY answers it);
`detailed` and `normalized` write a value as JSON_DETAILED and JSON_NORMALIZE do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

DEPTH_LIMIT = 32  # json_lib's JSON_DEPTH_LIMIT: the 32nd nested array or object is refused
_SPACE = " \t\n\r"


class Raw(str):
    """A scalar as the document writes it: a number, a quoted string, true, false or null."""


class Members(list):
    """An object: its (key as written, with its quotes, value) pairs in the document's order."""


@dataclass
class JsonError(Exception):
    """Text that is not JSON: `reason` "eos" (it ended early), "syntax", "bad_chr" (a character
    JSON disallows), "escaping" or "depth"; `position` where json_lib's scanner stood."""
    reason: str
    position: int


@dataclass
class JsonPathError(Exception):
    """A path json_lib refuses: `reason` "eos" or "syntax", at `position` (1-based, as MariaDB's
    warning counts it)."""
    reason: str
    position: int


@dataclass(frozen=True)
class Step:
    """One step of a path: a key (`key`, unescaped), or an array index: `index` counted from the
    start, or from the end when `from_end` (`[last]` is 0, `[last-1]` 1, `[-1]` 0); `wild` for
    the wildcards: "member" (`.*`), "element" (`[*]`), "any" (`**`: any depth, then the next
    step) and "range" (`[index to upto]`, `upto` None for `last`); "" for none."""
    key: str | None = None
    index: int = 0
    from_end: bool = False
    wild: str = ""
    upto: int | None = None


def parse(text: str) -> Any:
    """The document `text` as lists, `Members` and `Raw` scalars; `JsonError` if it is not JSON."""
    return _Scanner(text).document()


def parse_spans(text: str) -> tuple[Any, dict[int, str]]:
    """`parse`, and for each array and object of the result (by its id) its text as written."""
    scanner = _Scanner(text)
    scanner.spans = {}
    return scanner.document(), scanner.spans


def text(value: Any) -> str:
    """A parsed value written as MariaDB writes a document it edited (json_nice, LOOSE)."""
    if isinstance(value, Members):
        return "{" + ", ".join(f"{key}: {text(item)}" for key, item in value) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(text(item) for item in value) + "]"
    return value


def quote(value: str) -> Raw:
    """A string as a JSON string, escaped as MariaDB escapes one: '"', '\\' and the control
    characters (\\b \\f \\n \\r \\t, else \\u00xx); everything else as it is."""
    out = ['"']
    for ch in value:
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif ch < " ":
            out.append(_ESCAPES.get(ch) or f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    out.append('"')
    return Raw("".join(out))


_ESCAPES = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_UNESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def unquote(raw: str) -> str:
    """A key or string as written (with its quotes) as the characters it stands for."""
    body, out, i = raw[1:-1], [], 0
    while i < len(body):
        ch = body[i]
        if ch != "\\" or i + 1 >= len(body):
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt == "u" and i + 6 <= len(body):
            code = int(body[i + 2:i + 6], 16)
            i += 6
            if 0xD800 <= code < 0xDC00 and body[i:i + 2] == "\\u" and i + 6 <= len(body):
                code = 0x10000 + ((code - 0xD800) << 10) + (int(body[i + 2:i + 6], 16) - 0xDC00)
                i += 6
            out.append(chr(code))
            continue
        out.append(_UNESCAPES.get(nxt, nxt))
        i += 2
    return "".join(out)


# json_lib's number scanner: per state, the next state for - + 0 1-9 . e/E and an ending
# character; 0 ends the number, -1 is a syntax error (only an error at the end of the text: in
# the middle the number just ends there and the next token decides)
_GO, _GO1, _Z, _INT, _FRAC, _EX, _EX1 = 1, 2, 3, 5, 6, 7, 8
_NUMBER = {
    _GO1: (-1, -1, _Z, _INT, -1, -1, -1),
    _Z: (-1, -1, -1, -1, _FRAC, -1, 0),
    _INT: (-1, -1, _INT, _INT, _FRAC, _EX, 0),
    _FRAC: (-1, -1, _FRAC, _FRAC, -1, _EX, 0),
    _EX: (_EX, _EX, _EX1, _EX1, -1, -1, -1),
    _EX1: (-1, -1, _EX1, _EX1, -1, -1, 0),
}


def _number_class(ch: str) -> int:
    if ch == "-":
        return 0
    if ch == "+":
        return 1
    if ch == "0":
        return 2
    if "1" <= ch <= "9":
        return 3
    if ch == ".":
        return 4
    if ch in "eE":
        return 5
    return 6 if ch in _SPACE or ch in ",]}" else 7


class _Scanner:
    def __init__(self, doc: str):
        self.doc = doc
        self.i = 0
        self.depth = 0
        self.spans: dict[int, str] | None = None

    def fail(self, reason: str, position: int | None = None) -> JsonError:
        return JsonError(reason, self.i if position is None else position)

    def nonspace(self) -> str | None:
        """The next character that is not a blank, taken; None at the end."""
        doc, i = self.doc, self.i
        while i < len(doc) and doc[i] in _SPACE:
            i += 1
        if i >= len(doc):
            self.i = i
            return None
        self.i = i + 1
        return doc[i]

    def wrong(self, ch: str | None) -> JsonError:
        """The error for a character taken where it does not belong."""
        if ch is None:
            return self.fail("eos")
        return self.fail("bad_chr" if ch < " " else "syntax")

    def document(self) -> Any:
        value = self.value(self.nonspace())
        ch = self.nonspace()
        if ch is not None:
            raise self.wrong(ch)
        return value

    def value(self, ch: str | None) -> Any:
        if ch == "[" or ch == "{":
            self.depth += 1
            if self.depth >= DEPTH_LIMIT:
                raise self.fail("depth")
            start = self.i - 1
            value = self.array() if ch == "[" else self.object()
            self.depth -= 1
            if self.spans is not None:
                self.spans[id(value)] = self.doc[start:self.i]
            return value
        if ch == '"':
            return Raw(self.doc[self.i - 1:self.string()])
        if ch is not None and (ch == "-" or "0" <= ch <= "9"):
            return self.number()
        if ch is not None and ch in "tfn":
            start = self.i - 1
            for expected in {"t": "rue", "f": "alse", "n": "ull"}[ch]:
                if self.i >= len(self.doc):
                    raise self.fail("eos")
                if self.doc[self.i] != expected:
                    raise self.fail("syntax")
                self.i += 1
            return Raw(self.doc[start:self.i])
        raise self.wrong(ch)

    def array(self) -> list:
        items: list = []
        ch = self.nonspace()
        if ch == "]":
            return items
        while True:
            items.append(self.value(ch))
            ch = self.nonspace()
            if ch == "]":
                return items
            if ch != ",":
                raise self.wrong(ch)
            ch = self.nonspace()

    def object(self) -> Members:
        members = Members()
        ch = self.nonspace()
        if ch == "}":
            return members
        while True:
            if ch != '"':
                raise self.wrong(ch)
            start = self.i - 1
            end = self.string(key=True)
            key = self.doc[start:end]
            while True:  # blanks, then the ':' (a wrong character is refused where it stands)
                if self.i >= len(self.doc):
                    raise self.fail("eos")
                c = self.doc[self.i]
                if c == ":":
                    self.i += 1
                    break
                if c not in _SPACE:
                    raise self.fail("syntax")
                self.i += 1
            members.append((key, self.value(self.nonspace())))
            ch = self.nonspace()
            if ch == "}":
                return members
            if ch != ",":
                raise self.wrong(ch)
            ch = self.nonspace()

    def string(self, key: bool = False) -> int:
        """Past a string whose '"' was taken: the index after its closing quote."""
        doc = self.doc
        while True:
            if self.i >= len(doc):
                raise self.fail("eos")
            ch = doc[self.i]
            self.i += 1
            if ch == '"':
                return self.i
            if ch == "\\":
                self.escape()
            elif ch < " ":
                if key:  # (a key's control character is refused where it stands)
                    raise self.fail("syntax", self.i - 1)
                raise self.fail("bad_chr")

    def escape(self) -> None:
        doc = self.doc
        if self.i >= len(doc):
            raise self.fail("eos")
        ch = doc[self.i]
        if ch < " ":
            raise self.fail("escaping")
        self.i += 1
        if ch != "u":
            return  # (json_lib takes any other character after '\')
        code = self.hex4()
        if 0xDC00 <= code < 0xE000:
            raise self.fail("bad_chr")
        if 0xD800 <= code < 0xDC00:  # a surrogate pair: \uD8xx\uDCxx
            for expected in "\\u":
                if self.i >= len(doc):
                    raise self.fail("eos")
                if doc[self.i] != expected:
                    raise self.fail("syntax")
                self.i += 1
            if not 0xDC00 <= self.hex4() < 0xE000:
                raise self.fail("bad_chr")

    def hex4(self) -> int:
        doc, code = self.doc, 0
        for _ in range(4):
            if self.i >= len(doc):
                raise self.fail("eos")
            ch = doc[self.i]
            if ch not in "0123456789abcdefABCDEF":
                raise self.fail("syntax")
            code = code * 16 + int(ch, 16)
            self.i += 1
        return code

    def number(self) -> Raw:
        doc = self.doc
        start = self.i - 1
        first = doc[start]
        state = _GO1 if first == "-" else _Z if first == "0" else _INT
        while True:
            if self.i >= len(doc):
                if _NUMBER[state][6] < 0:
                    raise self.fail("syntax")
                break
            ch = doc[self.i]
            if ch >= "\x80":
                raise self.fail("bad_chr")
            cls = _number_class(ch) if ch >= " " or ch in _SPACE else 7
            nxt = _NUMBER[state][cls] if cls < 7 else 0  # (any other character ends it)
            if nxt <= 0:
                break
            state = nxt
            self.i += 1
        return Raw(doc[start:self.i])


def parse_path(path: str) -> list[Step]:
    """The steps of a JSON path, as json_lib reads it; `JsonPathError` when it refuses it."""
    return _PathScanner(path).steps()


class _PathScanner:
    def __init__(self, path: str):
        self.path = path
        self.i = 0

    def peek(self) -> str | None:
        return self.path[self.i] if self.i < len(self.path) else None

    def fail(self) -> JsonPathError:
        """Refused at the character that stands here (the end: an unexpected end)."""
        if self.i >= len(self.path):
            return JsonPathError("eos", self.i + 1)
        return JsonPathError("syntax", self.i + 1)

    def blanks(self) -> None:
        while self.peek() is not None and self.peek() in _SPACE:
            self.i += 1

    def word(self, word: str) -> None:
        for ch in word:
            if self.peek() != ch:
                raise self.fail()
            self.i += 1

    def steps(self) -> list[Step]:
        self.blanks()
        if self.peek() == "l":  # `lax $...` (lax is what every path here is read as)
            self.i += 1
            self.word("ax")
            if self.peek() is None or self.peek() not in _SPACE:
                raise self.fail()
            self.blanks()
        if self.peek() != "$":
            raise self.fail()
        self.i += 1
        steps: list[Step] = []
        while True:
            ch = self.peek()
            if ch is None:
                return steps
            self.i += 1
            if ch == ".":
                steps.append(self.key())
            elif ch == "[":
                steps.append(self.index())
            elif ch == "*":  # ** (any depth), then a step
                if self.peek() != "*":
                    raise self.fail()
                self.i += 1
                if self.peek() not in (".", "["):
                    self.i += self.peek() is not None
                    raise JsonPathError("syntax", self.i + 1)
                steps.append(Step(wild="any"))
            else:
                self.i -= 1
                raise self.fail()

    def key(self) -> Step:
        ch = self.peek()
        if ch is None or ch in ".[\\":
            raise self.fail()
        if ch == "*":
            self.i += 1
            return Step(wild="member")
        if ch == '"':  # ."quoted key"
            start = self.i
            self.i += 1
            while True:
                c = self.peek()
                if c is None:
                    raise self.fail()
                self.i += 1
                if c == "\\":
                    self.i += 1
                elif c == '"':
                    return Step(key=unquote(self.path[start:self.i]))
        start = self.i
        while self.peek() is not None and self.peek() not in ".[*":
            self.i += 1 + (self.peek() == "\\")
        return Step(key=unquote('"' + self.path[start:self.i] + '"'))

    def index(self) -> Step:
        self.blanks()
        ch = self.peek()
        if ch == "*":
            self.i += 1
            step = Step(wild="element")
        elif ch == "l":
            self.i += 1
            self.word("ast")
            self.blanks()
            n = 0
            if self.peek() == "-":
                self.i += 1
                self.blanks()
                n = self.digits()
            step = Step(index=n, from_end=True)
        elif ch == "-":
            self.i += 1
            n = self.digits()
            step = Step(index=n - 1, from_end=True) if n else Step(index=0)
        else:
            step = Step(index=self.digits())
        self.blanks()
        if self.peek() == "t":  # a range: [a to b]
            self.i += 1
            self.word("o")
            self.blanks()
            upto = None
            if self.peek() == "l":
                self.i += 1
                self.word("ast")
            else:
                upto = self.digits()
            self.blanks()
            step = Step(index=step.index, wild="range", upto=upto)
        if self.peek() != "]":
            raise self.fail()
        self.i += 1
        return step

    def digits(self) -> int:
        start = self.i
        while self.peek() is not None and self.peek().isdigit():
            self.i += 1
        if start == self.i:
            raise self.fail()
        return int(self.path[start:self.i])


def element(value: Any, step: Step) -> int | None:
    """The position in the array `value` that an index step names, None when it has none."""
    n = len(value)
    at = n - 1 - step.index if step.from_end else step.index
    return at if 0 <= at < n else None


def find(doc: Any, steps: list[Step]) -> tuple[bool, Any, Any, Any]:
    """(found, the value, its container, its place there: an index or a key's position) at
    `steps` (no wildcards) of a parsed document, lax: `[0]` of what is not an array is itself."""
    value, container, place = doc, None, None
    for step in steps:
        if step.key is not None:
            if not isinstance(value, Members):
                return False, None, None, None
            for k, (key, item) in enumerate(value):
                if unquote(key) == step.key:
                    value, container, place = item, value, k
                    break
            else:
                return False, None, None, None
        elif isinstance(value, list) and not isinstance(value, Members):
            at = element(value, step)
            if at is None:
                return False, None, None, None
            value, container, place = value[at], value, at
        elif step.index != 0 or step.from_end:
            return False, None, None, None
    return True, value, container, place


def key_at(members: Members, key: str) -> int | None:
    """The position of the first member of an object whose key is `key` (unescaped), or None."""
    return next((k for k, (written, _) in enumerate(members) if unquote(written) == key), None)


def replace_at(doc: Any, container: Any, place: Any, value: Any) -> Any:
    """`doc` with the value at (container, place) (from `find`) made `value`."""
    if container is None:
        return value
    if isinstance(container, Members):
        container[place] = (container[place][0], value)
    else:
        container[place] = value
    return doc


def matches(doc: Any, steps: list[Step]) -> list[tuple[str, Any]]:
    """Every (path as MariaDB writes a found one, value) that `steps` reach in a parsed document,
    wildcards followed, in the document's order; lax as `find`."""
    out: list[tuple[str, Any]] = []
    _match(doc, steps, 0, "$", out)
    return out


def _match(value: Any, steps: list[Step], k: int, path: str, out: list) -> None:
    if k == len(steps):
        out.append((path, value))
        return
    step = steps[k]
    if step.wild == "any":  # the next step here, or anywhere below
        _match(value, steps, k + 1, path, out)
        for sub, item in _children(value, path):
            _match(item, steps, k, sub, out)
        return
    if isinstance(value, Members):
        if step.key is None and not step.wild:
            if step.index == 0:  # lax: [0] of what is not an array is itself
                _match(value, steps, k + 1, path, out)
            return
        for sub, (key, item) in zip(_paths(value, path), value, strict=True):
            if step.wild == "member" or step.key is not None and unquote(key) == step.key:
                _match(item, steps, k + 1, sub, out)
        return
    if isinstance(value, list):
        if step.key is not None or step.wild == "member":
            return
        if step.wild == "element":
            chosen = range(len(value))
        elif step.wild == "range":
            chosen = range(step.index, len(value) if step.upto is None else min(step.upto + 1, len(value)))
        else:
            at = element(value, step)
            chosen = range(0) if at is None else range(at, at + 1)
        for at in chosen:
            _match(value[at], steps, k + 1, f"{path}[{at}]", out)
        return
    if step.key is None and not step.wild and step.index == 0:
        _match(value, steps, k + 1, path, out)


def _paths(members: Members, path: str) -> list[str]:
    return [f"{path}.{unquote(key)}" for key, _ in members]


def _children(value: Any, path: str) -> list[tuple[str, Any]]:
    """The members or elements of a value with their paths (none for a scalar)."""
    if isinstance(value, Members):
        return list(zip(_paths(value, path), (item for _, item in value), strict=True))
    if isinstance(value, list):
        return [(f"{path}[{at}]", item) for at, item in enumerate(value)]
    return []


def scalars(value: Any, path: str = "$") -> list[tuple[str, Raw]]:
    """Every scalar within a value (itself if it is one), with its path, in the document's order."""
    if not isinstance(value, list):
        return [(path, value)]
    return [found for sub, item in _children(value, path) for found in scalars(item, sub)]


def detailed(value: Any, tab: int = 4, depth: int = 0) -> str:
    """A value as MariaDB's JSON_DETAILED writes it: each member and element on its own line,
    indented `tab` blanks a level, a container after a key on the line below it; an array of
    at most one element that is no container, and scalars, on one line; an empty object as
    '{', a new line, '}'."""
    pad, inner = " " * (tab * depth), " " * (tab * (depth + 1))
    if isinstance(value, Members):
        lines = [f"{inner}{key}: " + (f"\n{inner}" + detailed(item, tab, depth + 1)
                                      if isinstance(item, list) else item) for key, item in value]
        return "{\n" + "".join(line + ",\n" for line in lines[:-1]) + (lines[-1] + "\n" if lines else "") + pad + "}"
    if isinstance(value, list):
        if len(value) <= 1 and not any(isinstance(item, list) for item in value):
            return "[" + "".join(value) + "]"
        return "[\n" + ",\n".join(inner + detailed(item, tab, depth + 1) for item in value) + "\n" + pad + "]"
    return value


def normalized(value: Any) -> str:
    """A value as MariaDB's JSON_NORMALIZE writes it: no blanks, an object's members ordered by
    key (duplicates kept, in their order), every number as a double in E notation with all its
    digits ('1.0E0', '1.2345678E7'), strings and literals as written."""
    if isinstance(value, Members):
        ordered = sorted(value, key=lambda member: unquote(member[0]).encode("utf-8"))
        return "{" + ",".join(f"{key}:{normalized(item)}" for key, item in ordered) + "}"
    if isinstance(value, list):
        return "[" + ",".join(normalized(item) for item in value) + "]"
    if value[0] == "-" or "0" <= value[0] <= "9":
        return _e_notation(value)
    return value


def _e_notation(number: str) -> str:
    digits = number.lstrip("-")
    mantissa, _, exp = digits.lower().partition("e")
    whole, _, frac = mantissa.partition(".")
    all_digits = (whole + frac).lstrip("0")
    if not all_digits:
        return "0.0E0"
    exponent = (int(exp) if exp else 0) + len(whole) - 1 - (len(whole + frac) - len((whole + frac).lstrip("0")))
    all_digits = all_digits.rstrip("0")
    sign = "-" if number.startswith("-") else ""
    return f"{sign}{all_digits[0]}.{all_digits[1:] or '0'}E{exponent}"
