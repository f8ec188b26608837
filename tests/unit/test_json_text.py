"""JSON documents written as MariaDB writes them (`functions.json_text`, the aggregates'
members): separators spaced, nothing else touched, numbers and strings as they are."""

from __future__ import annotations

from engine.functions import _json_member, json_text


def test_separators_spaced_outside_strings_only():
    assert json_text('{"a":1,"c":1.50,"s":"x,:\\"y","n":[1,{"b":null}]}') == \
        '{"a": 1, "c": 1.50, "s": "x,:\\"y", "n": [1, {"b": null}]}'
    assert json_text('{ "a" :  [1 ,2] }') == '{"a": [1, 2]}'
    assert json_text('"a\\\\"') == '"a\\\\"'  # an escaped backslash ends before the quote
    assert json_text("not json") == "not json" and json_text(None) is None


def test_aggregate_members_by_kind():
    assert [_json_member(v, k) for v, k in ((None, ""), ("1.50", "decimal"), (-1.0, "double"), (5, ""),
                                            (0.5, ""), ('a"b', ""), ('{"a":1}', "json"))] == \
        ["null", "1.50", "-1", "5", "0.5", '"a\\"b"', '{"a": 1}']
