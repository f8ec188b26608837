"""`mysql_native_password`: the stored hash, the client's scramble and the server's check.

Contract (MySQL 4.1+ authentication, the only plugin we speak):
- the server stores `SHA1(SHA1(password))` (20 bytes; shown as `*` + 40 upper-case hex digits,
  the `authentication_string` / `PASSWORD()` text form); an empty password stores nothing (b"").
- the client answers the 20-byte salt with `SHA1(password) XOR SHA1(salt + SHA1(SHA1(password)))`;
  an empty password answers with an empty response.
- the server recovers `SHA1(password)` from the response and checks that its SHA1 is the stored
  hash, so the password itself is never stored nor sent.
Pure functions; nothing here draws randomness: the caller supplies the salt (see `make_salt`).
"""

from __future__ import annotations

import hashlib
import hmac

NATIVE_PASSWORD_PLUGIN = "mysql_native_password"
SALT_LENGTH = 20


def _sha1(data: bytes) -> bytes:
    return hashlib.sha1(data).digest()


def _xor(a: bytes, b: bytes) -> bytes:
    return (int.from_bytes(a, "big") ^ int.from_bytes(b, "big")).to_bytes(len(a), "big")


def native_password_hash(password: str) -> bytes:
    """SHA1(SHA1(password)) as stored by the server; b"" for the empty password."""
    if not password:
        return b""
    return _sha1(_sha1(password.encode("utf-8")))


def hash_to_text(stored_hash: bytes) -> str:
    """The `*HEX` text form of a stored hash (empty string for no password)."""
    return "*" + stored_hash.hex().upper() if stored_hash else ""


def hash_from_text(text: str) -> bytes:
    """Parse the `*HEX` text form; raises ValueError on anything else (configuration input)."""
    if not text:
        return b""
    if len(text) != 41 or text[0] != "*":
        raise ValueError(f"not a mysql_native_password hash: {text!r}")
    return bytes.fromhex(text[1:])


def password_text_hash(password: str) -> str:
    """What `PASSWORD('...')` shows: `*` + hex of SHA1(SHA1(password)), '' for no password."""
    return hash_to_text(native_password_hash(password))


def scramble_native_password(password: str, salt: bytes) -> bytes:
    """The client's 20-byte auth response for `salt` (b"" for an empty password)."""
    if not password:
        return b""
    stage1 = _sha1(password.encode("utf-8"))
    return _xor(stage1, _sha1(salt[:SALT_LENGTH] + _sha1(stage1)))


def verify_native_password(salt: bytes, response: bytes, stored_hash: bytes) -> bool:
    """True when `response` proves knowledge of the password whose hash is `stored_hash`."""
    if not stored_hash:
        return not response
    if len(response) != SALT_LENGTH or len(stored_hash) != SALT_LENGTH:
        return False
    stage1 = _xor(response, _sha1(salt[:SALT_LENGTH] + stored_hash))
    return hmac.compare_digest(_sha1(stage1), stored_hash)


def make_salt(entropy: bytes) -> bytes:
    """A 20-byte handshake salt from 20 random bytes supplied by the caller (e.g. os.urandom).

    Salt bytes are kept in the printable range 0x21..0x7E, as servers do: a NUL would end the
    salt early in the greeting's NUL-terminated second part.
    """
    if len(entropy) < SALT_LENGTH:
        raise ValueError(f"need {SALT_LENGTH} bytes of entropy")
    return bytes(0x21 + b % 94 for b in entropy[:SALT_LENGTH])
