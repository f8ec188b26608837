"""protocol.statements: which binlog statements open or end a transaction, one rule for the
slave's GroupTracker, the master's dump, `semisync binlog --sql` and the pipeline's Arrow decode;
its regular expressions (RE2 in Arrow, `re` in the filters) held to the classifier."""

from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given
from hypothesis import strategies as st

from protocol.statements import (
    BEGIN_SQL,
    GROUP_END_SQL,
    TRANSACTION_END_SQL,
    query_kind,
    statement_kind,
    statement_kind_words,
    xa_kind,
)

# (statement, its kind, its XA kind)
FORMS = [
    ("BEGIN", "BEGIN", None), ("begin work;", "BEGIN", None), ("START TRANSACTION", "BEGIN", None),
    ("START TRANSACTION READ ONLY", "BEGIN", None), ("start\ttransaction with consistent snapshot", "BEGIN", None),
    ("BEGIN NOT ATOMIC SELECT 1; END", "OTHER", None), ("START TRANSACTIONS", "OTHER", None),
    ("START SLAVE", "OTHER", None), ("ſTART TRANSACTION", "BEGIN", None),
    ("COMMIT", "COMMIT", None), ("commit work", "COMMIT", None), ("COMMIT;", "COMMIT", None),
    ("COMMIT AND NO CHAIN", "COMMIT", None), ("COMMIT WORK RELEASE", "COMMIT", None),
    ("COMMIT NO RELEASE", "COMMIT", None), ("  COMMIT  ", "COMMIT", None), ("COMMITTED", "OTHER", None),
    ("ROLLBACK", "ROLLBACK", None), ("\n\trollback work", "ROLLBACK", None), ("ROLLBACK AND CHAIN", "ROLLBACK", None),
    ("ROLLBACK RELEASE", "ROLLBACK", None), ("rollback;", "ROLLBACK", None),
    # a rollback to a savepoint undoes part of its transaction and ends nothing
    ("ROLLBACK TO SAVEPOINT `s1_x1`", "OTHER", None), ("rollback work to x", "OTHER", None),
    ("ROLLBACK  TO x", "OTHER", None), ("ROLLBACK TO `x`", "OTHER", None),
    ("SAVEPOINT s", "OTHER", None), ("RELEASE SAVEPOINT s", "OTHER", None),
    # MariaDB's XA binlog: XA END ends no statement group, XA_PREPARE (an event) ends it, XA
    # COMMIT / ROLLBACK stand alone under their own GTID
    ("XA START X'7831',X'',1", "OTHER", "START"), ("XA BEGIN 'x'", "OTHER", "BEGIN"),
    ("XA END X'7831',X'',1", "OTHER", "END"), ("xa prepare 'x'", "OTHER", "PREPARE"),
    ("XA COMMIT X'7831',X'',1", "OTHER", "COMMIT"), ("XA COMMIT 'x' ONE PHASE", "OTHER", "COMMIT"),
    ("XA ROLLBACK 'x'", "OTHER", "ROLLBACK"), ("XA RECOVER", "OTHER", "RECOVER"), ("XAX START", "OTHER", None),
    ("INSERT INTO t VALUES (1)", "OTHER", None), ("", "OTHER", None),
]


def _regex_kinds(statement: str) -> tuple[bool, bool, bool]:
    """(BEGIN_SQL, TRANSACTION_END_SQL, GROUP_END_SQL) matched by Python's `re` and by Arrow's RE2
    alike (the pipeline's `_matches`, case ignored)."""
    found = tuple(re.match(rule, statement, re.I) is not None
                  for rule in (BEGIN_SQL, TRANSACTION_END_SQL, GROUP_END_SQL))
    arrow = tuple(pc.match_substring_regex(pa.array([statement]), rule, ignore_case=True)[0].as_py()
                  for rule in (BEGIN_SQL, TRANSACTION_END_SQL, GROUP_END_SQL))
    assert arrow == found, (statement, arrow, found)
    return found


def _agrees(statement: str) -> None:
    kind, xa = statement_kind(statement), xa_kind(statement)
    begins, ends, group_ends = _regex_kinds(statement)
    assert begins == (kind == "BEGIN"), statement
    assert ends == (kind in ("COMMIT", "ROLLBACK")), statement
    assert group_ends == (ends or xa in ("PREPARE", "COMMIT", "ROLLBACK")), statement
    assert query_kind(statement.encode()) == query_kind(memoryview(statement.encode())) == kind, statement


def test_every_form_has_its_kind_and_the_regular_expressions_agree():
    for statement, kind, xa in FORMS:
        assert (statement_kind(statement), xa_kind(statement), xa_kind(statement.encode())) == (kind, xa, xa), statement
        _agrees(statement)


def test_a_long_statement_is_read_past_the_peeked_start_where_the_rest_decides():
    for statement, kind in [(" " * 70 + "COMMIT", "COMMIT"), ("ROLLBACK WORK" + " " * 60 + "TO x", "OTHER"),
                            ("COMMIT" + " " * 70, "COMMIT"), ("ROLLBACK" + " " * 70 + "AND CHAIN", "ROLLBACK"),
                            ("START TRANSACTION" + " " * 70 + "READ ONLY", "BEGIN"),
                            ("SELECT '" + "é" * 60 + "'", "OTHER")]:
        assert statement_kind(statement) == query_kind(statement.encode()) == kind, statement


@given(st.text(alphabet=st.sampled_from(" \t\n\x0b\x1c\u00a0;'`ſıKSsTtAaRrBbEeGgIiNnCcOoMmLlKkWwDdHhPpXx_é1"), max_size=30))
def test_the_classifier_and_its_regular_expressions_agree(statement):
    assert statement_kind(statement) == statement_kind_words(statement)
    _agrees(statement)
