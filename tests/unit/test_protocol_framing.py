"""protocol/events.py's framing, header accessors, checksum handling and body offsets: what code
outside protocol/ uses instead of byte offsets of its own (checked against MariaDB's golden events
of test_events.py)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from protocol.errors import RemoteProtocolError
from protocol.events import (
    BINLOG_CHECKSUM_ALG_OFF,
    CHECKSUM_LEN,
    DECIMAL_RESULT,
    FL_GROUP_COMMIT_ID,
    GTID_FIELD_AT,
    HEADER_FIELD_AT,
    HEADER_LEN,
    INT_RESULT,
    QUERY_FIELD_AT,
    REAL_RESULT,
    ROWS_V1_FIELD_AT,
    ROWS_V2_FIELD_AT,
    STRING_RESULT,
    TABLE_MAP_FIELD_AT,
    USER_VAR_UNSIGNED_F,
    XID_BODY_LEN,
    EventType,
    FormatDescription,
    MariaGtid,
    Rows,
    UserVar,
    decode_event,
    decode_header,
    decode_packed_decimal,
    encode_packed_decimal,
    event_checksum_ok,
    event_size_at,
    event_type,
    framed_size,
    in_use_flag,
    rewrite_format_description,
    route_fields,
    strip_checksum,
    user_var_value,
)
from tests.unit.test_events import GOLDEN, _checksum


def test_header_field_offsets_are_the_wire_layout():
    assert HEADER_FIELD_AT == {
        "timestamp": 0, "type_code": 4, "server_id": 5, "event_size": 9, "log_pos": 13, "flags": 17,
    }


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_accessors_agree_with_the_decoded_header(name):
    raw = GOLDEN[name]
    h = decode_header(raw)
    assert event_type(raw) == h.type_code
    assert route_fields(raw) == (h.type_code, h.log_pos, h.flags)
    assert event_size_at(raw) == h.event_size == len(raw)
    crc = _checksum(name) or h.type_code == EventType.FORMAT_DESCRIPTION_EVENT
    assert framed_size(len(raw) - HEADER_LEN - (CHECKSUM_LEN if crc else 0), crc) == len(raw)
    assert event_checksum_ok(raw) is crc
    assert not event_checksum_ok(raw[:-1] + bytes([raw[-1] ^ 1]))


@pytest.mark.parametrize("name", [n for n in sorted(GOLDEN) if _checksum(n)])
def test_strip_checksum_gives_the_event_a_checksum_unaware_reader_expects(name):
    raw = GOLDEN[name]
    stripped = strip_checksum(raw)
    if event_type(raw) == EventType.FORMAT_DESCRIPTION_EVENT:  # keeps its footer, says OFF
        assert len(stripped) == len(raw) and event_checksum_ok(stripped)
        fd = decode_event(stripped, checksum=False).body
        assert isinstance(fd, FormatDescription) and fd.checksum_alg == BINLOG_CHECKSUM_ALG_OFF
        return
    assert stripped == raw[:9] + (len(raw) - CHECKSUM_LEN).to_bytes(4, "little") + raw[13:-CHECKSUM_LEN]
    assert decode_event(stripped, checksum=False).body == decode_event(raw, checksum=True).body


def test_rewrite_format_description_flags_position_and_creation_time():
    closed = GOLDEN["FORMAT_DESCRIPTION_EVENT"]  # MariaDB's FD of a file it closed
    assert not in_use_flag(closed)
    original = decode_event(closed, checksum=True)
    raw = rewrite_format_description(closed, in_use=True)  # as in the file while it is open
    assert in_use_flag(raw) and event_checksum_ok(raw) and len(raw) == len(closed)
    ev = decode_event(raw, checksum=True)
    assert ev.body == original.body and ev.log_pos == original.log_pos and ev.header.flags == 1
    assert rewrite_format_description(raw, in_use=False) == closed
    sent = decode_event(rewrite_format_description(raw, past_start=True), checksum=True)
    assert sent.log_pos == 0 and sent.body.create_timestamp == 0 and not sent.header.flags & 1
    assert sent.body.server_version == original.body.server_version
    with pytest.raises(RemoteProtocolError):
        rewrite_format_description(GOLDEN["XID_EVENT"])


def test_body_offsets_point_at_the_fields_of_golden_events():
    q = GOLDEN["QUERY_EVENT"][HEADER_LEN:-CHECKSUM_LEN]
    body = decode_event(GOLDEN["QUERY_EVENT"], checksum=True).body
    assert q[QUERY_FIELD_AT["db_len"]] == len(body.db)
    assert int.from_bytes(q[QUERY_FIELD_AT["status_vars_len"] :][:2], "little") == len(body.status_vars)
    assert q[QUERY_FIELD_AT["status_vars"] :][: len(body.status_vars)] == body.status_vars
    g = GOLDEN["GTID_EVENT"][HEADER_LEN:-CHECKSUM_LEN]
    gtid = decode_event(GOLDEN["GTID_EVENT"], checksum=True).body
    assert int.from_bytes(g[GTID_FIELD_AT["seq_no"] :][:8], "little") == gtid.seq_no
    assert g[GTID_FIELD_AT["flags2"]] == gtid.flags2
    committed = MariaGtid(9, 0, FL_GROUP_COMMIT_ID, commit_id=77).encode()
    assert int.from_bytes(committed[GTID_FIELD_AT["commit_id"] :][:8], "little") == 77
    t = GOLDEN["TABLE_MAP_EVENT_NOCRC"][HEADER_LEN:]
    assert t[TABLE_MAP_FIELD_AT["db_len"]] == 1 and t[TABLE_MAP_FIELD_AT["db"]] == ord("d")
    v1 = Rows(EventType.WRITE_ROWS_EVENT_V1, 5, 1, b"rows").encode()
    assert v1[ROWS_V1_FIELD_AT["rows"] :] == b"rows"
    v2 = Rows(EventType.WRITE_ROWS_EVENT, 5, 1, b"rows", b"xy").encode()
    assert int.from_bytes(v2[ROWS_V2_FIELD_AT["extra_len"] :][:2], "little") == 2 + 2
    assert v2[ROWS_V2_FIELD_AT["extra"] :] == b"xyrows"
    assert len(GOLDEN["XID_EVENT"]) == HEADER_LEN + XID_BODY_LEN + CHECKSUM_LEN


# MySQL's documented decimal2bin example: 1234567890.1234 as DECIMAL(14,4), and its negation
PACKED = bytes.fromhex("810dfb38d204d2")
PACKED_NEGATIVE = bytes.fromhex("7ef204c72dfb2d")


def test_packed_decimal():
    assert decode_packed_decimal(PACKED, 0, 14, 4) == (Decimal("1234567890.1234"), 7)
    assert decode_packed_decimal(b"??" + PACKED_NEGATIVE, 2, 14, 4) == (Decimal("-1234567890.1234"), 9)
    with pytest.raises(RemoteProtocolError):
        decode_packed_decimal(PACKED[:-1], 0, 14, 4)


def test_packed_decimal_encoded_as_decimal2bin_and_read_back():
    assert encode_packed_decimal(Decimal("1234567890.1234")) == (14, 4, PACKED)  # the documented bytes
    assert encode_packed_decimal(Decimal("-1234567890.1234")) == (14, 4, PACKED_NEGATIVE)
    assert encode_packed_decimal(Decimal("1.50")) == (3, 2, bytes.fromhex("8132"))
    for text in ("0", "-0", "0.5", "-0.0005", "100", "1E+3", "0.000", "12345678901234567890.5",
                 "1.2345678901234567890123", "-123456789.123456789", "999999999999999999.999999999"):
        precision, scale, packed = encode_packed_decimal(Decimal(text))
        assert decode_packed_decimal(packed, 0, precision, scale) == (Decimal(text), len(packed)), text


@pytest.mark.parametrize(("body", "value"), [
    (UserVar("v", is_null=True, flags=None), None),
    (UserVar("v", type=INT_RESULT, charset=63, value=(-5 & (2**64 - 1)).to_bytes(8, "little")), -5),
    (UserVar("v", type=INT_RESULT, charset=63, value=(2**64 - 1).to_bytes(8, "little"), flags=USER_VAR_UNSIGNED_F), 2**64 - 1),
    (UserVar("v", type=REAL_RESULT, charset=63, value=bytes.fromhex("0000000000000440")), 2.5),
    (UserVar("v", type=DECIMAL_RESULT, charset=63, value=bytes([14, 4]) + PACKED), Decimal("1234567890.1234")),
    (UserVar("v", type=STRING_RESULT, charset=63, value=b"\x00\xff"), b"\x00\xff"),
    (UserVar("v", type=STRING_RESULT, charset=45, value="é".encode()), "é"),
])
def test_user_var_value_of_each_type(body, value):
    assert user_var_value(body) == value


def test_user_var_text_that_is_not_utf8():
    body = UserVar("v", type=STRING_RESULT, charset=45, value=b"a\xff")
    assert user_var_value(body).encode("utf-8", "surrogateescape") == b"a\xff"  # round-trips
    assert user_var_value(body, errors="replace") == "a\ufffd"
    with pytest.raises(RemoteProtocolError):
        user_var_value(UserVar("v", type=DECIMAL_RESULT, charset=63, value=b"\x0e"))
