"""engine.strfuncs against answers read from MariaDB 10.11: CHAR's bytes, GET_FORMAT's table,
the INET6 parsers and printer, COMPRESS's format and UNCOMPRESS's warnings."""

from engine import strfuncs


def _warnings():
    seen = []
    return seen, seen.append


def test_char_bytes_and_charsets():
    seen, warn = _warnings()
    assert strfuncs.mysql_char("binary", [77, 121, 83, 81, 76], warn) == "MySQL"  # (UTF-8 bytes held as TEXT)
    assert strfuncs.mysql_char("binary", [233, None, 256, -1, 1 << 32], warn) == b"\xe9\x01\x00\xff\xff\xff\xff\x00"
    assert strfuncs.mysql_char("utf8mb4", [0xC3A9], warn) == "é"
    assert strfuncs.mysql_char("utf8mb4", [0x41, 0xE9], warn) is None
    assert strfuncs.mysql_char("utf8", [0xF09F9880], warn) is None
    assert strfuncs.mysql_char("utf8mb4", [0xF09F9880], warn) == "\U0001F600"
    assert seen == [("Warning", 1300, "Invalid utf8mb4 character string: 'E9'"),
                    ("Warning", 1300, "Invalid utf8mb3 character string: 'F09F98'")]


def test_get_format():
    assert strfuncs.get_format("DATE", "usa") == "%m.%d.%Y"
    assert strfuncs.get_format("TIMESTAMP", "EUR") == "%Y-%m-%d %H.%i.%s"
    assert strfuncs.get_format("TIME", "INTERNAL") == "%H%i%s"
    assert strfuncs.get_format("DATE", "usa ") is None
    assert strfuncs.get_format("DATE", None) is None


def test_inet6_round_trips():
    for text in ("::1", "10.0.5.9", "fdfe::5a55:caff:fefa:9089", "::ffff:1.2.3.4", "::1.2.3.4", "2001:db8:0:1::1", "1::"):
        assert strfuncs.inet6_ntoa(strfuncs.inet6_aton(text)) == text
    assert strfuncs.inet6_aton("1:2:3:4:5:6:7::") == bytes.fromhex("00010002000300040005000600070000")
    assert strfuncs.inet6_aton("1.2.3.04") == b"\x01\x02\x03\x04"
    for bad in ("1::2::3", "1.2.3", " ::1", "::1 ", "256.1.1.1", ":1::", "1::2:", "1.2.3.0004", "12345::", ""):
        assert strfuncs.inet6_aton(bad) is None, bad
    assert strfuncs.inet6_ntoa("abc") is None
    assert strfuncs.inet6_ntoa(bytes.fromhex("000000000000000000000000000100ff")) == "::0.1.0.255"


def test_ip_predicates():
    seen, warn = _warnings()
    assert (strfuncs.is_ipv4("10.0.5.9"), strfuncs.is_ipv4("10.0.5.256"), strfuncs.is_ipv6("::1"),
            strfuncs.is_ipv6("10.0.5.9")) == (1, 0, 1, 0)
    compat, mapped = strfuncs.ipv6_test(False, warn), strfuncs.ipv6_test(True, warn)
    assert compat(strfuncs.inet6_aton("::10.0.5.9")) == 1
    assert compat(strfuncs.inet6_aton("::1")) == 0
    assert mapped(strfuncs.inet6_aton("::ffff:10.0.5.9")) == 1
    assert mapped(bytes.fromhex("ab7f20")) == 0
    assert seen == [("Warning", 1292, "Incorrect inet6 value: '\\xAB\\x7F '")]


def test_compress_format_and_uncompress_warnings():
    assert strfuncs.compress("abc").hex().upper() == "03000000789C4B4C4A0600024D0127"
    assert strfuncs.compress("") == b""
    seen, warn = _warnings()
    uncompress, length = strfuncs.uncompress(warn), strfuncs.uncompressed_length(warn)
    assert uncompress(strfuncs.compress("abc ")) == b"abc "
    assert length("garbage") == 577921383
    assert uncompress("garbage") is None
    assert uncompress(bytes.fromhex("01000000789C4B4C4A0600024D0127")) is None
    assert uncompress(bytes.fromhex("00000000789C4B4C4A0600024D0127")) is None
    assert uncompress(bytes.fromhex("0300000078")) is None
    assert [code for _, code, _ in seen] == [1256, 1258, 1259, 1259]


def test_a_binary_string_held_as_text_is_read_as_its_bytes():
    """A VARBINARY value whose bytes are UTF-8 is held as TEXT (`values.binary_value`): INET6_NTOA
    and IS_IPV4_COMPAT read it as those bytes (10.0.0.1, ::1.2.3.4)."""
    warned: list = []
    assert strfuncs.inet6_ntoa("\n\x00\x00\x01") == "10.0.0.1"
    assert strfuncs.inet6_ntoa(bytes(12).decode() + "\x01\x02\x03\x04") == "::1.2.3.4"
    assert strfuncs.ipv6_test(False, warned.append)(bytes(12).decode() + "\x01\x02\x03\x04") == 1 and not warned


def test_char_in_a_single_byte_charset_is_the_text_a_client_reads():
    seen, warn = _warnings()
    assert strfuncs.mysql_char("latin1", [233, 128, 129, 0x4142], warn) == "é€\x81AB"
    assert strfuncs.mysql_char("ascii", [65, 233], warn) == "A?"
    assert seen == []


def test_natural_sort_key():
    assert [strfuncs.natural_sort_key(s) for s in ("a10", "a010", "a0", "a0001", "x1.5y", "", "abc")] == \
        ["a110", "a110", "a00", "a01", "x01.05y", "", "abc"]
    assert strfuncs.natural_sort_key("1234567890") == "901234567890"
    assert strfuncs.natural_sort_key("12345678901234567890") == "99112345678901234567890"
    assert strfuncs.natural_sort_key(123) == "2123"
    assert strfuncs.natural_sort_key(None) is None


def test_sformat():
    seen, warn = _warnings()
    f = strfuncs.sformat(warn)
    assert [f("{} {}", 1, "a"), f("{1} {0}", "a", "b"), f("{:^5}|", "ab"), f("{:05}", 42), f("{:.2f}", 3.14159),
            f("{:#x}", 255), f("{{}}"), f("{:e}", 1234.5), f("{:*^7}", "x"), f("{:+d}", 5)] == \
        ["1 a", "b a", " ab  |", "00042", "3.14", "0xff", "{}", "1.234500e+03", "***x***", "+5"]
    assert [f("{}", 1.0), f("{}", 0.1), f("{}", 1e20), f("{}", -0.5), f("{:08}", -2.5), f("{:+}", 2.5)] == \
        ["1", "0.1", "1e+20", "-0.5", "-00002.5", "+2.5"]
    assert f("{}", None) is None and f(None, 1) is None
    assert [f("{} {}", 1), f("{:d}", "a"), f("{:d}", 1.5), f("{}{0}", "a")] == [None] * 4
    assert [w[2] for w in seen] == ["SFORMAT error: argument not found", "SFORMAT error: invalid type specifier",
                                    "SFORMAT error: invalid type specifier",
                                    "SFORMAT error: cannot switch from automatic to manual argument indexing"]
    for unsupported in ("{a}", "{:{}}", "{:L}", "{0.x}"):
        try:
            f(unsupported, 1, 2)
        except strfuncs.Unsupported:
            continue
        raise AssertionError(unsupported)


def test_password_old_password_crc32c():
    assert strfuncs.password("a") == "*667F407DE7C6AD07358FA38DAED7828A72014B4E"
    assert strfuncs.password("") == strfuncs.password(None) == ""
    assert strfuncs.old_password("a") == "60671c896665c3fa"
    assert strfuncs.old_password("") == ""
    assert strfuncs.crc32c("a") == 3251651376
    assert strfuncs.crc32c(1, "a") == 867942451
    assert strfuncs.crc32c(None) is None


def test_soundex():
    assert [strfuncs.soundex(s) for s in ("Robert", "Tymczak", "Ashcraft", "Pfister", " hello", "Ab-cd")] == \
        ["R163", "T520", "A2613", "P236", "H400", "A123"]
    assert [strfuncs.soundex(s) for s in ("", "123", "é", "ÀBC", "aéb", "x")] == ["", "", "é000", "À120", "A100", "X000"]
    assert strfuncs.soundex(None) is None
