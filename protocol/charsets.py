"""The character sets a client connection may speak, and text converted to and from them.

Contract
- `CHARSETS` holds the character sets this server converts a connection's text for, by the name
  `character_set_client` / `character_set_results` take (MariaDB 10.11's names; `utf8` is
  `utf8mb3`): latin1, ascii, binary, utf8mb3, utf8mb4. `charset_named` refuses any other name
  as MariaDB refuses an unknown one (1115), and one MariaDB knows but does not take from a client
  (ucs2, utf16, utf16le, utf32) as it does (1231). `collation_named` / `COLLATION_NAMES` give
  the collations of those character sets by name and number (a handshake names one by number).
- Text inside the server is `str`; the wire's text is UTF-8 with surrogateescape
  (`protocol.packets.decode_text`): a byte that is not UTF-8 survives as a lone surrogate.
  `Charset.decode` reads a client's bytes in its character set into that form: latin1 gives
  every byte its character, ascii and the utf8 family leave a byte they cannot read as a
  surrogate (the engine then refuses it as MariaDB does: 1366), binary leaves every byte as it
  is (a binary connection's bytes are taken as they are, as MariaDB takes them).
- `Charset.encode` writes text in the character set, a character it cannot hold as '?' (MariaDB's
  conversion), a surrogate as the byte it stands for. `Charset.wire_text` is the str whose wire
  form (`encode_text`) is those bytes: what an error message or a column name carries to a
  client of that character set through the protocol's str fields.
- MySQL's latin1 is Windows cp1252 with its five undefined bytes (0x81 0x8D 0x8F 0x90 0x9D) read
  as U+0081 U+008D U+008F U+0090 U+009D, one to one (MariaDB's ctype-latin1.c), held equal to a
  live MariaDB for all 256 bytes by tests/integration/test_client_charsets_mariadb.py.
"""

from __future__ import annotations

import codecs
from collections.abc import Sequence
from dataclasses import dataclass

from protocol.errors import ER_UNKNOWN_CHARACTER_SET, ER_WRONG_VALUE_FOR_VAR, SQLError
from protocol.messages import CHARSET_BINARY, ColumnDefinition

# cp1252 with its undefined bytes mapped to the C1 controls of the same number
_LATIN1_TABLE = "".join(
    bytes((b,)).decode("cp1252") if b not in (0x81, 0x8D, 0x8F, 0x90, 0x9D) else chr(b) for b in range(256)
)
_LATIN1_ENCODING = codecs.charmap_build(_LATIN1_TABLE)


def _mysql_replace(exc: UnicodeError) -> tuple[str | bytes, int]:
    """Encoding errors as MariaDB converts: a surrogate (a byte the client sent that was not
    text) back to its byte, any other character it cannot hold to '?'."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = bytearray()
    for ch in exc.object[exc.start : exc.end]:
        code = ord(ch)
        out.append(code - 0xDC00 if 0xDC80 <= code <= 0xDCFF else 0x3F)
    return bytes(out), exc.end


codecs.register_error("mysql_replace", _mysql_replace)


@dataclass(frozen=True, slots=True)
class Charset:
    """A character set a connection speaks: its name, the number of its default collation (what
    a column definition's charsetnr says for it), its longest character in bytes, and whether
    its text differs from the wire's UTF-8 (`converts`: latin1, ascii)."""

    name: str
    number: int
    mbmaxlen: int
    converts: bool

    def decode(self, raw: bytes) -> str:
        """A client's bytes in this character set as text (see the module's contract)."""
        if self.name == "latin1":
            return codecs.charmap_decode(raw, "strict", _LATIN1_TABLE)[0]
        if self.name == "ascii":
            return raw.decode("ascii", "surrogateescape")
        return raw.decode("utf-8", "surrogateescape")

    def encode(self, text: str) -> bytes:
        """`text` in this character set: '?' for a character it cannot hold."""
        if self.name == "latin1":
            return codecs.charmap_encode(text, "mysql_replace", _LATIN1_ENCODING)[0]
        if self.name == "ascii":
            return text.encode("ascii", "mysql_replace")
        return text.encode("utf-8", "surrogateescape")

    def wire_text(self, text: str) -> str:
        """The str the protocol sends as `text` in this character set (ASCII text as it is)."""
        if not self.converts or text.isascii():
            return text
        return self.encode(text).decode("utf-8", "surrogateescape")


LATIN1 = Charset("latin1", 8, 1, True)
ASCII = Charset("ascii", 11, 1, True)
BINARY = Charset("binary", CHARSET_BINARY, 1, False)
UTF8MB3 = Charset("utf8mb3", 33, 3, False)
UTF8MB4 = Charset("utf8mb4", 45, 4, False)
CHARSETS = {cs.name: cs for cs in (LATIN1, ASCII, BINARY, UTF8MB3, UTF8MB4)}
_ALIASES = {"utf8": "utf8mb3"}
# MariaDB's character sets that a client connection may not speak (1231 for character_set_client)
_NOT_FOR_CLIENTS = frozenset({"ucs2", "utf16", "utf16le", "utf32"})

_UCA_SUFFIXES = ("unicode_ci", "icelandic_ci", "latvian_ci", "romanian_ci", "slovenian_ci", "polish_ci",
                 "estonian_ci", "spanish_ci", "swedish_ci", "turkish_ci", "czech_ci", "danish_ci",
                 "lithuanian_ci", "slovak_ci", "spanish2_ci", "roman_ci", "persian_ci", "esperanto_ci",
                 "hungarian_ci", "sinhala_ci", "german2_ci", "croatian_mysql561_ci", "unicode_520_ci",
                 "vietnamese_ci")
# The collations of CHARSETS a handshake can name (numbers below 256), as MariaDB 10.11 numbers them.
COLLATION_NAMES: dict[int, str] = {
    5: "latin1_german1_ci", 8: "latin1_swedish_ci", 11: "ascii_general_ci", 15: "latin1_danish_ci",
    31: "latin1_german2_ci", 33: "utf8mb3_general_ci", 45: "utf8mb4_general_ci", 46: "utf8mb4_bin",
    47: "latin1_bin", 48: "latin1_general_ci", 49: "latin1_general_cs", 63: "binary", 65: "ascii_bin",
    83: "utf8mb3_bin", 94: "latin1_spanish_ci", 223: "utf8mb3_general_mysql500_ci",
    **{192 + i: f"utf8mb3_{suffix}" for i, suffix in enumerate(_UCA_SUFFIXES)},
    **{224 + i: f"utf8mb4_{suffix}" for i, suffix in enumerate(_UCA_SUFFIXES)},
}
_COLLATION_NUMBERS = {name: number for number, name in COLLATION_NAMES.items()}


def charset_named(name: str, variable: str = "character_set_client") -> Charset:
    """The character set `name` names (any case; utf8 is utf8mb3), or MariaDB's error for a name
    it does not know (1115) or a client may not speak (1231 for `variable`)."""
    key = name.lower()
    cs = CHARSETS.get(_ALIASES.get(key, key))
    if cs is not None:
        return cs
    if key in _NOT_FOR_CLIENTS and variable == "character_set_client":
        raise SQLError(ER_WRONG_VALUE_FOR_VAR, variable, name)
    raise SQLError(ER_UNKNOWN_CHARACTER_SET, name)


def collation_charset(number: int) -> tuple[Charset, str] | None:
    """The character set and collation name of collation `number`, None when it is not one of
    CHARSETS' (a handshake's unknown number: the server's defaults apply, as MariaDB's)."""
    name = COLLATION_NAMES.get(number)
    if name is None:
        return None
    return charset_named(name.partition("_")[0]), name


def default_collation(cs: Charset) -> str:
    """The name of `cs`'s default collation (SET NAMES without COLLATE)."""
    return COLLATION_NAMES[cs.number]


def collation_number(name: str) -> int | None:
    return _COLLATION_NUMBERS.get(name.lower())


def mbmaxlen(number: int) -> int:
    """The longest character in bytes of collation `number`'s character set (4: not one of ours)."""
    name = COLLATION_NAMES.get(number)
    return 4 if name is None else CHARSETS[name.partition("_")[0]].mbmaxlen


def result_column(col: ColumnDefinition, results: Charset) -> ColumnDefinition:
    """`col` as MariaDB describes it to a client whose character_set_results is `results`: its
    names in that character set; a column of characters says `results`' number and holds as
    many characters in bytes of it (a binary column keeps its charset 63 and its length)."""
    text = results.wire_text
    charset, length = col.charset, col.length
    if charset != CHARSET_BINARY:
        charset = results.number
        length = min(length // mbmaxlen(col.charset) * results.mbmaxlen, 0xFFFFFFFF)
    return ColumnDefinition(text(col.name), col.type, charset, length, col.flags, col.decimals, text(col.schema),
                            text(col.table), text(col.org_table), text(col.org_name), col.catalog,
                            col.type_name, col.format_name)


def result_rows(columns: Sequence[ColumnDefinition], rows: Sequence[Sequence[object]],
                results: Charset) -> Sequence[Sequence[object]]:
    """`rows` for a client whose character_set_results is `results`: the text of each column of
    characters (charset not 63) as bytes in that character set ('?' for what it cannot hold);
    binary columns, numbers and ASCII text as they are."""
    if not results.converts:
        return rows
    texts = [i for i, col in enumerate(columns) if col.charset != CHARSET_BINARY]
    if not texts:
        return rows
    encode = results.encode
    out = []
    for row in rows:
        if any(type(v) is str and not v.isascii() for v in (row[i] for i in texts)):
            values = list(row)
            for i in texts:
                v = values[i]
                if type(v) is str and not v.isascii():
                    values[i] = encode(v)
            row = tuple(values)
        out.append(row)
    return out


def for_results(columns: Sequence[ColumnDefinition], rows: Sequence[Sequence[object]], results: Charset,
                ) -> tuple[tuple[ColumnDefinition, ...], Sequence[Sequence[object]]]:
    """`columns` and `rows` as a client whose character_set_results is `results` receives them
    (`result_column`, `result_rows`)."""
    return tuple(result_column(col, results) for col in columns), result_rows(columns, rows, results)
