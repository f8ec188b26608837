"""mysql_native_password: known vectors, PyMySQL's implementation as a second opinion."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pymysql import _auth as pymysql_auth

from protocol.auth import (
    hash_from_text,
    hash_to_text,
    make_salt,
    native_password_hash,
    password_text_hash,
    scramble_native_password,
    verify_native_password,
)

SALT = b"\x21\x49\x2d\x43\x4a\x2c\x39\x7a\x7b\x7d\x21\x2a\x4c\x23\x65\x58\x67\x7b\x56\x7c"


def test_known_password_hashes():
    # What MySQL/MariaDB's PASSWORD() prints for these passwords.
    assert password_text_hash("password") == "*2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19"
    assert password_text_hash("root") == "*81F5E21E35407D884A6CD4A731AEBFB6AF209E1B"
    assert password_text_hash("") == ""
    assert native_password_hash("") == b""


def test_text_form_round_trip():
    stored = native_password_hash("s3cret")
    assert hash_from_text(hash_to_text(stored)) == stored
    assert hash_from_text("") == b""
    for bad in ("2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19", "*24", "*" + "Z" * 40):
        with pytest.raises(ValueError):
            hash_from_text(bad)


@given(st.text(min_size=1, max_size=40), st.binary(min_size=20, max_size=20))
def test_scramble_matches_pymysql_and_verifies(password, salt):
    response = scramble_native_password(password, salt)
    assert response == pymysql_auth.scramble_native_password(password.encode(), salt)
    stored = native_password_hash(password)
    assert verify_native_password(salt, response, stored)
    assert not verify_native_password(salt, response, native_password_hash(password + "x"))
    other_salt = bytes(b ^ 1 for b in salt)
    assert not verify_native_password(other_salt, response, stored)


def test_empty_password_and_bad_responses():
    assert scramble_native_password("", SALT) == b""
    assert verify_native_password(SALT, b"", b"")
    assert not verify_native_password(SALT, b"x" * 20, b"")  # a password for a password-less user
    stored = native_password_hash("pw")
    assert not verify_native_password(SALT, b"", stored)
    assert not verify_native_password(SALT, b"short", stored)


def test_make_salt():
    salt = make_salt(bytes(range(256))[:20])
    assert len(salt) == 20 and all(0x21 <= b <= 0x7E for b in salt)
    assert make_salt(b"\x00" * 20) != make_salt(b"\x01" * 20)
    with pytest.raises(ValueError):
        make_salt(b"short")
