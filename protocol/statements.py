"""Which statements of a binlog's QUERY events open or end a transaction: the one rule of every
reader (the slave's GroupTracker and applier, the master's dump, `semisync binlog --sql`, the
pipeline's Arrow decode and `semisync binlog`'s filters), as MariaDB's grammar words them:

- BEGIN [WORK] and START TRANSACTION [...] open one (`BEGIN`);
- COMMIT [WORK] and ROLLBACK [WORK], alone or before AND [NO] CHAIN / [NO] RELEASE, end it
  (`COMMIT`, `ROLLBACK`); ROLLBACK [WORK] TO [SAVEPOINT] x undoes part of it and ends nothing;
- XA statements are their own (`xa_kind`): MariaDB binlogs an XA transaction as a GTID group that
  its XA_PREPARE event ends (its XA START in the GTID, its XA END a statement that ends nothing),
  then XA COMMIT / XA ROLLBACK alone under a standalone GTID; a group ends at XA PREPARE,
  COMMIT or ROLLBACK written as statements too (`GROUP_END_SQL`).

Keywords are compared without regard to case (Unicode's simple folding, as RE2's and `re`'s:
'ſTART TRANSACTION' opens one), blanks are ASCII ones. `statement_kind` reads a decoded statement, `query_kind` a
QUERY's raw bytes, decoding their start only; `BEGIN_SQL`, `TRANSACTION_END_SQL` and
`GROUP_END_SQL` are the same rule as regular expressions in RE2's syntax (Arrow's
match_substring_regex, case ignored; Python's `re` reads them alike), which the tests hold to
the classifier. Sans I/O: text in, a kind out."""

from __future__ import annotations

import re

_WS = r"[ \t\n\r\f\v]"
_END_WORD = r"(?:[^0-9A-Za-z_]|$)"  # (RE2's \b is ASCII's, Python's Unicode's: spelled out)
_CLOSE = rf"({_WS}*;*{_WS}*$|{_WS}+(AND|NO|RELEASE){_END_WORD})"  # what may follow COMMIT / ROLLBACK [WORK]
BEGIN_SQL = rf"^{_WS}*(BEGIN({_WS}+WORK)?{_WS}*;*{_WS}*$|START{_WS}+TRANSACTION{_END_WORD})"
TRANSACTION_END_SQL = rf"^{_WS}*(COMMIT|ROLLBACK)({_WS}+WORK)?{_CLOSE}"
_XA_SQL = rf"^{_WS}*XA{_WS}+(START|BEGIN|END|PREPARE|COMMIT|ROLLBACK|RECOVER){_END_WORD}"
GROUP_END_SQL = rf"{TRANSACTION_END_SQL}|^{_WS}*XA{_WS}+(PREPARE|COMMIT|ROLLBACK){_END_WORD}"

_FLAGS = re.IGNORECASE
_BEGIN = re.compile(BEGIN_SQL, _FLAGS)
_END = re.compile(TRANSACTION_END_SQL, _FLAGS)
_XA = re.compile(_XA_SQL, _FLAGS)

# The ASCII characters that start no BEGIN, START TRANSACTION, COMMIT or ROLLBACK in any case and
# are no blank: a statement that starts with one is OTHER without a look at its words (INSERT,
# UPDATE, DELETE ...). protocol/_eventscan.c's other_first() is the same set.
OTHER_FIRST = frozenset(c for c in map(chr, range(128)) if not c.isspace() and c.upper() not in "BSCR")
_OTHER_FIRST_BYTES = frozenset(map(ord, OTHER_FIRST))
# The boundaries as binlogs write them, whole: their kind without a look at their words.
_KIND_OF = {"BEGIN": "BEGIN", "COMMIT": "COMMIT", "ROLLBACK": "ROLLBACK", "START TRANSACTION": "BEGIN"}
_KIND_OF_BYTES = {text.encode(): kind for text, kind in _KIND_OF.items()}
_KIND_OF_LONGEST = max(map(len, _KIND_OF))
_PEEK = 64  # bytes of a raw statement `query_kind` decodes first


def statement_kind(query: str) -> str:
    """BEGIN, COMMIT, ROLLBACK or OTHER for a QUERY event's statement (`statement_kind_words`,
    decided by the first character or the whole text where those decide alike)."""
    if query[:1] in OTHER_FIRST:
        return "OTHER"
    if len(query) <= _KIND_OF_LONGEST:
        kind = _KIND_OF.get(query)
        if kind is not None:
            return kind
    return statement_kind_words(query)


def statement_kind_words(query: str) -> str:
    """`statement_kind` by the statement's words (the module's rule, nothing taken as read)."""
    if _BEGIN.match(query):
        return "BEGIN"
    found = _END.match(query)
    if found is None:
        return "OTHER"
    return "COMMIT" if found.group(1).upper() == "COMMIT" else "ROLLBACK"


def query_kind(text: memoryview | bytes) -> str:
    """`statement_kind` of a QUERY event's raw statement bytes, decoding only their start (none
    of them when the first byte or the whole text decides, as in `statement_kind`); all of them
    when the start is mostly blanks or a kind was read up to its end, where what follows decides."""
    if not text or text[0] in _OTHER_FIRST_BYTES:
        return "OTHER"
    if len(text) <= _KIND_OF_LONGEST:
        kind = _KIND_OF_BYTES.get(bytes(text))
        if kind is not None:
            return kind
    head = bytes(text[:_PEEK]).decode("utf-8", "surrogateescape")
    if len(text) > _PEEK:
        stripped = head.lstrip(" \t\n\r\f\v")
        if len(stripped) <= _PEEK // 2 or any(rule.match(head) for rule in (_BEGIN, _END)):
            head = bytes(text).decode("utf-8", "surrogateescape")
    return statement_kind_words(head)


def xa_kind(query: str | bytes) -> str | None:
    """START, BEGIN, END, PREPARE, COMMIT, ROLLBACK or RECOVER for an XA statement (upper-case),
    else None."""
    if isinstance(query, bytes):
        query = query[:_PEEK].decode("utf-8", "surrogateescape")
    found = _XA.match(query)
    return None if found is None else found.group(1).upper()
