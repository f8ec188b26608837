"""The MySQL-style value parsers of config/values.py (mysqld's syntax, refusals say what is allowed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from config.master import WaitPoint
from config.values import (
    is_loopback,
    parse_basename,
    parse_bool,
    parse_enum,
    parse_int,
    parse_optional_host,
    parse_path,
    parse_seconds,
)


@pytest.mark.parametrize(
    "written, expected",
    [
        ("ON", True), ("on", True), ("On", True), ("TRUE", True), ("true", True), ("1", True),
        ("OFF", False), ("off", False), ("oFf", False), ("FALSE", False), ("False", False),
        ("0", False), (" on ", True), (True, True), (False, False), (1, True), (0, False),
    ],
)  # fmt: skip
def test_booleans_take_mysqld_spellings_in_any_case(written, expected):
    assert parse_bool(written) is expected


@pytest.mark.parametrize("written", ["yes", "no", "2", "", "ONN", 2, -1, 1.0, None])
def test_other_booleans_are_refused_saying_what_is_allowed(written):
    with pytest.raises(ValueError, match=r"^allowed ON, OFF, 1, 0, TRUE, FALSE$"):
        parse_bool(written)


def test_enums_take_names_in_any_case_and_refuse_the_rest():
    assert parse_enum(WaitPoint, "after_commit") is WaitPoint.AFTER_COMMIT
    assert parse_enum(WaitPoint, WaitPoint.AFTER_SYNC) is WaitPoint.AFTER_SYNC
    with pytest.raises(ValueError, match=r"^allowed AFTER_SYNC, AFTER_COMMIT$"):
        parse_enum(WaitPoint, "AFTER")
    with pytest.raises(ValueError):
        parse_enum(WaitPoint, 0)


@pytest.mark.parametrize(
    "written, expected",
    [("4096", 4096), ("64M", 64 << 20), ("1g", 1 << 30), ("8k", 8192), (" 7 ", 7), (5000, 5000)],
)
def test_integers_take_mysqld_size_suffixes(written, expected):
    assert parse_int(written, 0, 1 << 40) == expected


@pytest.mark.parametrize("written", ["4095", "1025M", "-1", "1.5", "12X", "", True, 3.0, None])
def test_integers_out_of_range_or_malformed_are_refused(written):
    with pytest.raises(ValueError, match=r"^allowed integers 4096-1073741824$"):
        parse_int(written, 4096, 1073741824)


def test_seconds_take_fractions_and_zero_only_when_it_disables():
    assert parse_seconds("0.5", 0.001, 10) == 0.5
    assert parse_seconds(3, 0.001, 10) == 3.0
    assert parse_seconds("0", 0.001, 10, zero_disables=True) == 0.0
    with pytest.raises(ValueError, match=r"^allowed seconds 0.001-10$"):
        parse_seconds("0", 0.001, 10)
    with pytest.raises(ValueError, match=r"^allowed 0 \(disabled\) or seconds 0.001-4294967$"):
        parse_seconds("0.0001", 0.001, 4294967, zero_disables=True)
    for bad in ("nan", "inf", "soon", "11", True):
        with pytest.raises(ValueError):
            parse_seconds(bad, 0.001, 10)


@pytest.mark.parametrize(
    "address, loopback",
    [
        ("127.0.0.1", True), ("127.1.2.3", True), ("::1", True), ("localhost", True),
        ("LOCALHOST", True), ("0.0.0.0", False), ("::", False), ("10.0.0.1", False),
        ("128.0.0.1", False), ("127.example.com", False), ("db.example.com", False),
    ],
)  # fmt: skip
def test_loopback_is_127_slash_8_ipv6_one_and_localhost(address, loopback):
    assert is_loopback(address) is loopback


def test_names_paths_and_hosts():
    assert parse_basename("mysql-bin") == "mysql-bin"
    for bad in ("", "a/b", "..", 5):
        with pytest.raises(ValueError, match="basename"):
            parse_basename(bad)
    assert parse_path("./data/x") == Path("data/x")
    with pytest.raises(ValueError, match="path"):
        parse_path("")
    assert parse_optional_host("") is None
    assert parse_optional_host(None) is None
    assert parse_optional_host("db1") == "db1"
    with pytest.raises(ValueError, match="host"):
        parse_optional_host("two words")
