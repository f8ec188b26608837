"""`BinlogPosition`'s two implementations, the compiled type (`protocol._position`) and the
reference (`protocol.position.PyBinlogPosition`), held equal: one battery of behaviours
(construction, immutability, attributes, pattern matching, equality and hash, the four orderings
over positions of one file, of numbered files, of names without a numeric extension and of
different basenames, comparisons with other types, repr, str, pickling and copying, dict and set
use) is run against each and the outcomes, errors and their messages included, must be the same.
Hypothesis adds random pairs of positions."""

from __future__ import annotations

import copy
import operator
import pickle
import shutil
import sysconfig
from dataclasses import FrozenInstanceError

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import position
from protocol.errors import LocalProtocolError
from protocol.position import PyBinlogPosition

try:
    from protocol._position import BinlogPosition as CBinlogPosition
except ImportError:  # not built: the reference alone
    CBinlogPosition = None

built = pytest.mark.skipif(CBinlogPosition is None, reason="protocol._position was not built")

FILES = ["mysql-bin.000009", "mysql-bin.000010", "mysql-bin.1000000", "mysql-bin.10", "mysql-bin",
         "mysql-bin.x1", "relay-bin.000009", "", "a.b.000002", "a.b.2", "mysql-bin.٣"]
OFFSETS = [0, 4, 120, 2**40, -1, -2]
OPS = [operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne]


def outcome(cls: type, f) -> tuple:
    """What `f()` does, comparable across the two classes: a value (positions by their repr and
    whether they are of `cls`), or an exception's type and message (the class's own name read as
    the public one)."""
    try:
        value = f()
    except Exception as e:  # noqa: BLE001 - the exception is the outcome
        return ("raises", type(e), str(e).replace("PyBinlogPosition", "BinlogPosition"))
    if isinstance(value, cls):
        return ("position", repr(value))
    if isinstance(value, list | tuple):
        return ("sequence", [outcome(cls, lambda v=v: v) for v in value])
    return ("value", value)


def battery(cls: type) -> list[tuple]:
    P = cls
    p = P("mysql-bin.000010", 120)
    results = [
        outcome(cls, lambda: P("f.000001", 4)),
        outcome(cls, lambda: P(file="f.000001", pos=4)),
        outcome(cls, lambda: P("f.000001", pos=4)),
        outcome(cls, lambda: P(pos=4, file="f.000001")),
        outcome(cls, lambda: (p.file, p.pos)),
        outcome(cls, lambda: P.__match_args__),
        outcome(cls, lambda: isinstance(p, P)),
        outcome(cls, lambda: hasattr(p, "__dict__")),
        outcome(cls, lambda: p.nothing),
    ]
    # argument errors: the type only (the parser's wording names __init__ or the type)
    for bad in (lambda: P(), lambda: P("f"), lambda: P("f", 1, 2), lambda: P("f", pos=1, file="g"),
                lambda: P("f", 1, other=2)):
        results.append(outcome(cls, bad)[:2])

    for name in ("file", "pos", "other"):
        results.append(outcome(cls, lambda name=name: setattr(p, name, 1)))
        results.append(outcome(cls, lambda name=name: delattr(p, name)))
    results.append(outcome(cls, lambda: (p.file, p.pos)))
    for ex in (FrozenInstanceError, AttributeError):
        try:
            p.pos = 5  # type: ignore[misc]
        except ex:
            results.append(("caught as", ex))

    def matched(value: object) -> object:
        match value:
            case P(f, o) if o > 100:
                return ("big", f, o)
            case P(file=f, pos=o):
                return ("small", f, o)
            case _:
                return "no"

    results += [outcome(cls, lambda v=v: matched(v)) for v in (p, P("x", 4), ("x", 4), None)]

    positions = [P(f, o) for f in FILES for o in OFFSETS[:4]] + [P("mysql-bin.000010", 120)]
    for a in positions:
        results.append(outcome(cls, lambda a=a: (repr(a), str(a), f"{a}", format(a, ""))))
        results.append(outcome(cls, lambda a=a: hash(a) == hash((a.file, a.pos))))
        for b in positions:
            for op in OPS:
                results.append(outcome(cls, lambda a=a, b=b, op=op: op(a, b)))
    for other in (4, ("mysql-bin.000010", 120), None, "mysql-bin.000010:120", 1.5):
        for op in OPS:
            results.append(outcome(cls, lambda other=other, op=op: op(p, other)))
            results.append(outcome(cls, lambda other=other, op=op: op(other, p)))
    for o in OFFSETS + [2**70, True]:
        q = P("f.000001", o)
        results.append(outcome(cls, lambda q=q: hash(q) == hash(("f.000001", q.pos))))

    same_file = [P("mysql-bin.000010", o) for o in (900, 4, 120, 4)]
    mixed = [P("mysql-bin.1000000", 4), P("mysql-bin.000009", 900), P("mysql-bin.000010", 4)]
    results += [
        outcome(cls, lambda: sorted(same_file)),
        outcome(cls, lambda: sorted(mixed)),
        outcome(cls, lambda: (max(mixed), min(mixed))),
        outcome(cls, lambda: sorted([P("mysql-bin.000001", 4), P("relay-bin.000001", 4)])),
        outcome(cls, lambda: {P("f.1", 4): "a", P("f.1", 4): "b", P("f.1", 5): "c"}[P("f.1", 4)]),
        outcome(cls, lambda: len({P("f.1", 4), P("f.1", 4), P("f.01", 4)})),
        outcome(cls, lambda: P("f.1", 4) in [P("f.1", 4)]),
    ]
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        results.append(outcome(cls, lambda protocol=protocol: pickle.loads(pickle.dumps(p, protocol))))
        results.append(outcome(cls, lambda protocol=protocol: pickle.loads(pickle.dumps(p, protocol)) == p))
    results += [
        outcome(cls, lambda: copy.copy(p)), outcome(cls, lambda: copy.deepcopy(p)),
        outcome(cls, lambda: copy.deepcopy({"at": p})["at"] == p),
        outcome(cls, lambda: p.__reduce__()[1]),
    ]
    return results


def test_the_module_is_built_where_a_c_compiler_is():
    if shutil.which(sysconfig.get_config_var("CC").split()[0]) is None:
        pytest.skip("no C compiler: the install has no protocol._position, positions are the reference")
    assert CBinlogPosition is not None, "pip install -e . left protocol/_position.c unbuilt"
    assert position.BinlogPosition is CBinlogPosition
    assert isinstance(position.ZERO, CBinlogPosition) and (position.ZERO.file, position.ZERO.pos) == ("", 0)


def test_the_reference_behaves_as_the_module_header_says():
    P = PyBinlogPosition
    assert P("mysql-bin.000009", 900) < P("mysql-bin.000010", 4) < P("mysql-bin.1000000", 4)
    assert P("mysql-bin.000010", 4) < P("mysql-bin.000010", 5)
    with pytest.raises(LocalProtocolError, match="cannot order positions of different binlogs: "
                                                 "mysql-bin.000001:4 vs relay-bin.000001:4"):
        P("mysql-bin.000001", 4) < P("relay-bin.000001", 4)  # noqa: B015
    with pytest.raises(FrozenInstanceError, match="cannot assign to field 'pos'"):
        P("f", 1).pos = 2  # type: ignore[misc]
    assert repr(P("f", 1)) == "BinlogPosition(file='f', pos=1)" and str(P("f", 1)) == "f:1"


@built
def test_the_compiled_type_behaves_as_the_reference():
    compiled, reference = battery(CBinlogPosition), battery(PyBinlogPosition)
    assert len(compiled) == len(reference)
    for i, (c, r) in enumerate(zip(compiled, reference, strict=True)):
        assert c == r, f"behaviour {i}: compiled {c!r}, reference {r!r}"


names = st.sampled_from(FILES) | st.text(alphabet="ab.0123456789", max_size=8)
offsets = st.integers(min_value=-(2**65), max_value=2**65)


@built
@given(names, offsets, names, offsets)
def test_random_pairs_compare_and_hash_as_the_reference(fa, oa, fb, ob):
    for op in OPS:
        c = outcome(CBinlogPosition, lambda op=op: op(CBinlogPosition(fa, oa), CBinlogPosition(fb, ob)))
        r = outcome(PyBinlogPosition, lambda op=op: op(PyBinlogPosition(fa, oa), PyBinlogPosition(fb, ob)))
        assert c == r
    assert hash(CBinlogPosition(fa, oa)) == hash(PyBinlogPosition(fa, oa)) == hash((fa, oa))
    assert str(CBinlogPosition(fa, oa)) == str(PyBinlogPosition(fa, oa))
