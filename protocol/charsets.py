"""The character sets a client connection may speak, and text converted to and from them.

Contract
- `CHARSETS` holds the character sets this server converts a connection's text for, by the name
  `character_set_client` / `character_set_results` take (MariaDB 10.11's names; `utf8` is
  `utf8mb3`): latin1, ascii, binary, utf8mb3, utf8mb4, and each of MariaDB's other client
  character sets whose mapping a Python codec gives byte for byte (`_CODECS`: cp1250, cp1251,
  cp1257, cp850, cp852, koi8r, latin2, latin5, latin7, macce, macroman, euckr (MariaDB's is
  cp949), gb2312, gbk). `charset_named` refuses any other name as MariaDB refuses an unknown one
  (1115), MariaDB's own client sets whose mapping no codec here gives (big5, sjis, cp932, ujis,
  eucjpms, greek, hebrew, koi8u, cp866, cp1256, tis620, armscii8, dec8, hp8, swe7, keybcs2,
  geostd8) included: their bytes would be stored as other characters than MariaDB's. One MariaDB
  knows but does not take from a client (ucs2, utf16, utf16le, utf32) is refused as MariaDB does
  (1231). `collation_named` / `COLLATION_NAMES` give the collations of those character sets by
  name and number (a handshake names one by number); `unspoken_collation` names the character
  set of a handshake's number that is MariaDB's but not ours (the login is refused with 1115
  rather than reading its bytes in another character set).
- Text inside the server is `str`; the wire's text is UTF-8 with surrogateescape
  (`protocol.packets.decode_text`): a byte that is not UTF-8 survives as a lone surrogate.
  `Charset.decode` reads a client's bytes in its character set into that form through its
  Python codec: latin1 gives every byte its character, the others leave a byte they cannot read
  (one MariaDB converts to '?') as a surrogate (the engine then refuses it as MariaDB does:
  1366), binary leaves every byte as it is (a binary connection's bytes are taken as they are,
  as MariaDB takes them).
- `Charset.encode` writes text in the character set, a character it cannot hold as '?' (MariaDB's
  conversion), a surrogate as the byte it stands for. `Charset.wire_text` is the str whose wire
  form (`encode_text`) is those bytes: what an error message or a column name carries to a
  client of that character set through the protocol's str fields.
- MySQL's latin1 is Windows cp1252 with its five undefined bytes (0x81 0x8D 0x8F 0x90 0x9D) read
  as U+0081 U+008D U+008F U+0090 U+009D, one to one (MariaDB's ctype-latin1.c), held equal to a
  live MariaDB for all 256 bytes by tests/integration/test_client_charsets_mariadb.py, as are the
  other single-byte sets; the multi-byte ones for every two-byte code and every BMP character
  MariaDB converts to them.
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


def _latin1_codec(name: str) -> codecs.CodecInfo | None:
    """MySQL's latin1 as the Python codec `mysql_latin1`."""
    if name != "mysql_latin1":
        return None
    return codecs.CodecInfo(name=name, encode=lambda text, errors="strict": codecs.charmap_encode(
        text, errors, _LATIN1_ENCODING), decode=lambda raw, errors="strict": codecs.charmap_decode(
        raw, errors, _LATIN1_TABLE))


codecs.register(_latin1_codec)


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
    a column definition's charsetnr says for it), its longest character in bytes, whether its
    text differs from the wire's UTF-8 (`converts`: all but binary and the utf8 family), and the
    Python codec that reads and writes it."""

    name: str
    number: int
    mbmaxlen: int
    converts: bool
    codec: str = "utf-8"

    def decode(self, raw: bytes) -> str:
        """A client's bytes in this character set as text (see the module's contract)."""
        return raw.decode(self.codec, "surrogateescape")

    def encode(self, text: str) -> bytes:
        """`text` in this character set: '?' for a character it cannot hold."""
        return text.encode(self.codec, "mysql_replace" if self.converts else "surrogateescape")

    def wire_text(self, text: str) -> str:
        """The str the protocol sends as `text` in this character set (ASCII text as it is)."""
        if not self.converts or text.isascii():
            return text
        return self.encode(text).decode("utf-8", "surrogateescape")


LATIN1 = Charset("latin1", 8, 1, True, "mysql_latin1")
ASCII = Charset("ascii", 11, 1, True, "ascii")
BINARY = Charset("binary", CHARSET_BINARY, 1, False)
UTF8MB3 = Charset("utf8mb3", 33, 3, False)
UTF8MB4 = Charset("utf8mb4", 45, 4, False)
# MariaDB's other client character sets a Python codec maps as MariaDB does (the module's
# contract): name -> (its default collation's number, mbmaxlen, codec)
_CODECS = {
    "cp1250": (26, 1, "cp1250"), "cp1251": (51, 1, "cp1251"), "cp1257": (59, 1, "cp1257"),
    "cp850": (4, 1, "cp850"), "cp852": (40, 1, "cp852"), "koi8r": (7, 1, "koi8_r"),
    "latin2": (9, 1, "iso8859_2"), "latin5": (30, 1, "iso8859_9"), "latin7": (41, 1, "iso8859_13"),
    "macce": (38, 1, "mac_latin2"), "macroman": (39, 1, "mac_roman"), "euckr": (19, 2, "cp949"),
    "gb2312": (24, 2, "gb2312"), "gbk": (28, 2, "gbk"),
}
CHARSETS = {cs.name: cs for cs in (LATIN1, ASCII, BINARY, UTF8MB3, UTF8MB4, *(
    Charset(name, number, mbmaxlen, True, codec) for name, (number, mbmaxlen, codec) in _CODECS.items()))}
_ALIASES = {"utf8": "utf8mb3"}
# MariaDB's character sets that a client connection may not speak (1231 for character_set_client)
_NOT_FOR_CLIENTS = frozenset({"ucs2", "utf16", "utf16le", "utf32"})
# MariaDB 10.11's collation numbers (below 256) of the client character sets no codec here maps
# as MariaDB does (the module's contract)
_UNSPOKEN_NUMBERS = {
    "big5": (1, 84), "dec8": (3, 69), "hp8": (6, 72), "swe7": (10, 82), "ujis": (12, 91), "sjis": (13, 88),
    "hebrew": (16, 71), "tis620": (18, 89), "koi8u": (22, 75), "greek": (25, 70), "armscii8": (32, 64),
    "cp866": (36, 68), "keybcs2": (37, 73), "cp1256": (57, 67), "geostd8": (92, 93), "cp932": (95, 96),
    "eucjpms": (97, 98),
}
_UNSPOKEN = {number: name for name, numbers in _UNSPOKEN_NUMBERS.items() for number in numbers}

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
    2: "latin2_czech_cs", 4: "cp850_general_ci", 7: "koi8r_general_ci", 9: "latin2_general_ci",
    14: "cp1251_bulgarian_ci", 19: "euckr_korean_ci", 20: "latin7_estonian_cs", 21: "latin2_hungarian_ci",
    23: "cp1251_ukrainian_ci", 24: "gb2312_chinese_ci", 26: "cp1250_general_ci", 27: "latin2_croatian_ci",
    28: "gbk_chinese_ci", 29: "cp1257_lithuanian_ci", 30: "latin5_turkish_ci", 34: "cp1250_czech_cs",
    38: "macce_general_ci", 39: "macroman_general_ci", 40: "cp852_general_ci", 41: "latin7_general_ci",
    42: "latin7_general_cs", 43: "macce_bin", 44: "cp1250_croatian_ci", 50: "cp1251_bin", 51: "cp1251_general_ci",
    52: "cp1251_general_cs", 53: "macroman_bin", 58: "cp1257_bin", 59: "cp1257_general_ci", 66: "cp1250_bin",
    74: "koi8r_bin", 77: "latin2_bin", 78: "latin5_bin", 79: "latin7_bin", 80: "cp850_bin", 81: "cp852_bin",
    85: "euckr_bin", 86: "gb2312_bin", 87: "gbk_bin", 99: "cp1250_polish_ci",
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


def unspoken_collation(number: int) -> str | None:
    """The name of collation `number`'s character set when it is MariaDB's client character set
    that this server does not speak (the module's contract), else None."""
    return _UNSPOKEN.get(number)


def introduced_charset(word: str | None) -> Charset | None:
    """The character set the introducer `word` (`_cp1251`, any case) names when a string after
    it is that character set's bytes, as a connection of it sends them: latin1, cp1251, gbk ...,
    every one of CHARSETS that converts but ascii (whose strings are ASCII); else None."""
    if word is None or not word.startswith("_"):
        return None
    cs = CHARSETS.get(word[1:].lower())
    return cs if cs is not None and cs.converts and cs is not ASCII else None


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
        if length != 0xFFFFFFFF:  # (a LONGTEXT's, JSON's: MariaDB's cap whatever the character set)
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
