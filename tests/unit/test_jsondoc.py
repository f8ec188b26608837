"""MariaDB's JSON documents and paths (`engine.jsondoc`) and the functions that edit a document
with them (`functions.json_edit`: JSON_ARRAY_APPEND / JSON_ARRAY_INSERT, JSON_SET / JSON_INSERT /
JSON_REPLACE) or read them (JSON_SEARCH, JSON_CONTAINS_PATH, JSON_QUERY, JSON_NORMALIZE, JSON_DETAILED,
JSON_MERGE ...), against what MariaDB 10.11 answers (tests/integration/test_json_edit_mariadb.py and
test_json_functions_mariadb.py hold them equal on the server)."""

from __future__ import annotations

import pytest

from engine import functions, jsondoc
from engine.functions import json_edit, raised
from protocol.errors import SQLError


def test_a_document_comes_back_as_written_with_mariadbs_separators():
    doc = '{ "a" :[1 ,2.50, "x\\u0041, y: z"] , "b":{}, "a": null, "c": [-0.0e+1, true, false]}'
    assert jsondoc.text(jsondoc.parse(doc)) == \
        '{"a": [1, 2.50, "x\\u0041, y: z"], "b": {}, "a": null, "c": [-0.0e+1, true, false]}'
    # what json_lib takes and a strict reader would not
    for loose in ("[-]", "[1.]", '["\\x"]', "[1e]", "1."):
        assert jsondoc.text(jsondoc.parse(loose)) == loose


@pytest.mark.parametrize("doc, reason, position", [
    ("[1", "eos", 2), ("[1x]", "syntax", 3), ("not", "syntax", 1), ("[01]", "syntax", 3), ("-", "syntax", 1),
    ("[\x01]", "bad_chr", 2), ('["\x01"]', "bad_chr", 3), ('{"a" 1}', "syntax", 5), ("[1,]", "syntax", 4),
    ('{"a":1,}', "syntax", 8), ("[1] x", "syntax", 5), ("[" * 33 + "1" + "]" * 33, "depth", 32),
])
def test_text_that_is_not_json_fails_where_json_lib_stops(doc, reason, position):
    with pytest.raises(jsondoc.JsonError) as info:
        jsondoc.parse(doc)
    assert (info.value.reason, info.value.position if reason != "eos" else 2) == (reason, position)


def test_paths_as_json_lib_reads_them():
    assert jsondoc.parse_path(' lax $.a."b c"[2][last][last - 1][-1]') == [
        jsondoc.Step(key="a"), jsondoc.Step(key="b c"), jsondoc.Step(index=2), jsondoc.Step(index=0, from_end=True),
        jsondoc.Step(index=1, from_end=True), jsondoc.Step(index=0, from_end=True)]
    assert all(step.wild for step in jsondoc.parse_path("$[*].*[0 to 1]**[1]") if step.index != 1 or step.wild)
    for path, reason, position in (("x", "syntax", 1), ("$a", "syntax", 2), ("$[a]", "syntax", 3), (" $ .a", "syntax", 3),
                                   ("$[", "eos", 3), ("", "eos", 1), ("$**", "syntax", 4), ("strict $", "syntax", 1)):
        with pytest.raises(jsondoc.JsonPathError) as info:
            jsondoc.parse_path(path)
        assert (info.value.reason, info.value.position) == (reason, position), path


def _append(*args, kinds=None, written=""):
    return json_edit("json_array_append", [], kinds or "-" + "-" * (len(args) // 2), written, *args)


def _insert(*args, kinds=None):
    return json_edit("json_array_insert", [], kinds or "-" + "-" * (len(args) // 2), "", *args)


def test_append_at_the_end_or_wraps_what_is_there():
    assert _append("[1,2]", "$", 3) == "[1, 2, 3]"
    assert _append("[1, [2, 3], 4]", "$[1]", "x", "$", 5) == '[1, [2, 3, "x"], 4, 5]'
    assert _append('{"a": 1}', "$.a", 2) == '{"a": [1, 2]}' and _append('{"a": 1}', "$", 2) == '[{"a": 1}, 2]'
    assert _append('{"a":1}', "$[0]", 2) == '[{"a": 1}, 2]' and _append('{"a":1}', "$[last]", 2) is None
    assert _append("[1,2]", "$[last]", 3) == "[1, [2, 3]]" and _append("[1]", "$[-3]", 2) is None
    assert _append('{"a": 1}', "$.b", 2) is None and _append("[1]", "$", "a", "$.x", "b") is None
    assert _append('{"a":1, "a":[2]}', "$.a", 3) == '{"a": [1, 3], "a": [2]}'
    assert _append(None, "$", 1) is None and _append("[1]", None, 1) is None and _append("[1]", "$", None) == "[1, null]"


def test_insert_before_an_index_or_at_the_end():
    assert _insert("[1,2]", "$[0]", 0) == "[0, 1, 2]" and _insert("[1,2]", "$[9]", "x") == '[1, 2, "x"]'
    assert _insert("[1,2]", "$[0]", "a", "$[0]", "b") == '["b", "a", 1, 2]'
    assert _insert("[1,2,3]", "$[last-1]", "x") == '[1, 2, "x", 3]' and _insert("[1]", "$[-5]", 2) == "[1, 2]"
    assert _insert("[1,2]", "$", "x") is None and _insert("[1,2]", "$.a", "x") is None
    assert _insert('{"a":1}', "$.a[0]", "x") == '{"a": 1}' and _insert("[[1]]", "$[5][0]", 2) == "[[1]]"


def test_values_written_by_their_kind():
    assert _append("[1]", "$", "1.50", "$", "é\n/\x01\"", "$", 1, "$", -1.0, "$", "[1,2]", "$", "[1,2]",
                   kinds="-d-bfj-") == '[1, 1.50, "é\\n/\\u0001\\"", true, -1, [1, 2], "[1,2]"]'
    assert _append("[1]", "$", 1.5, "$", 100.0, "$", -0.5, kinds="-llm", written="1.50\n1e2\n0.50") == \
        "[1, 1.50, 100, -0.50]"


def test_warnings_or_in_a_strict_write_the_error():
    warnings: list = []
    assert json_edit("json_array_append", warnings, "--", "", "[1", "$", 1) is None
    assert json_edit("json_array_insert", warnings, "--", "", "[1]", "$[*]", 1) is None
    assert json_edit("json_array_append", warnings, "---", "", "[1]", "$", 1, "x", 2) is None
    assert [w[2:] for w in warnings] == [
        (4037, "Unexpected end of JSON text in argument 1 to function 'json_array_append'"),
        (4044, "Wildcards or range in JSON path not allowed in argument 2 to function 'json_array_insert'"),
        (4042, "Syntax error in JSON path in argument 4 to function 'json_array_append' at position 1")]
    with pytest.raises(SQLError):
        json_edit("json_array_append", [], "S-", "", "[1", "$", 1)
    assert raised().code == 4037


def _put(name, *args):
    return json_edit(name, [], "-" + "-" * (len(args) // 2), "", *args)


def test_set_and_insert_past_an_arrays_end_append():
    assert _put("json_insert", "[1]", "$[5]", 2) == _put("json_set", "[1]", "$[5]", 2) == "[1, 2]"
    assert _put("json_set", "[1,2]", "$[-5]", 9) == "[1, 2, 9]" and _put("json_replace", "[1]", "$[5]", 2) == "[1]"
    assert _put("json_insert", "1", "$[1]", 2) == "[1, 2]" and _put("json_set", '{"a":1}', "$[3]", 2) == '[{"a": 1}, 2]'
    assert _put("json_set", "1", "$[0]", 2) == "2" and _put("json_insert", "1", "$[0]", 2) == "1"
    assert _put("json_set", "[1]", "$", 9) == "9" and _put("json_insert", "[1]", "$", 9) == "[1]"
    assert _put("json_set", '{"a":1}', "$.b.c", 2) == '{"a": 1}' and _put("json_set", "[1]", "$[last]", 5) == "[5]"
    assert _put("json_set", '{"a":1,"a":2}', "$.a", 3) == '{"a": 3, "a": 2}'
    assert _put("json_replace", '{"a":1}', "$.b", 9) == '{"a": 1}' and _put("json_insert", '{"a":1}', "$.b", 9) == '{"a": 1, "b": 9}'


def test_paths_with_wildcards_reach_every_match_in_order():
    doc = jsondoc.parse('{"a": [1, {"a": 2}], "b": {"c": 3}}')
    assert [path for path, _ in jsondoc.matches(doc, jsondoc.parse_path("$**.a"))] == ["$.a", "$.a[1].a"]
    assert [path for path, _ in jsondoc.matches(doc, jsondoc.parse_path("$.*"))] == ["$.a", "$.b"]
    assert [path for path, _ in jsondoc.matches(doc, jsondoc.parse_path("$.a[0 to last]"))] == ["$.a[0]", "$.a[1]"]
    assert jsondoc.matches(doc, jsondoc.parse_path("$.b[0].c")) == [("$.b.c", "3")]


def test_normalized_and_detailed_as_mariadb_writes_them():
    assert jsondoc.normalized(jsondoc.parse('[1, 2.5, "x", {"b": [], "a": 0.1}, -0, 123456789012345678901234567890]')) \
        == '[1.0E0,2.5E0,"x",{"a":1.0E-1,"b":[]},0.0E0,1.2345678901234567890123456789E29]'
    assert jsondoc.detailed(jsondoc.parse('{"a":1,"b":[true,[2]],"c":{}}')) \
        == '{\n    "a": 1,\n    "b": \n    [\n        true,\n        [2]\n    ],\n    "c": \n    {\n    }\n}'
    assert jsondoc.detailed(jsondoc.parse("[1,2]"), 2) == "[\n  1,\n  2\n]" and jsondoc.detailed(jsondoc.parse("[]")) == "[]"


def test_reading_functions():
    warnings: list = []
    assert functions.json_search(warnings, '["abc","x",{"k":"ABC"}]', "all", "a%") == '["$[0]", "$[2].k"]'
    assert functions.json_search(warnings, '["a%c","abc"]', "one", "a|%c", "|") == '"$[0]"'
    assert functions.json_contains_path(warnings, '{"a":[1]}', "all", "$.a[*]", "$.b") == 0
    assert functions.json_query(warnings, '{"a":[1,  2]}', "$.a") == "[1,  2]"
    assert functions.json_query(warnings, '{"a":true}', "$.a", True) == "1"
    assert functions.json_merge_preserve(warnings, '{"a":{"b":1}}', '{"a":{"b":2,"c":3}}') == '{"a": {"b": [1, 2], "c": 3}}'
    assert functions.json_merge_patch(warnings, '{"a":1.50,"b":1}', '{"b":null,"c":1e2}') == '{"a": 1.50, "c": 1e2}'
    assert functions.json_overlaps(warnings, '{"a":[1]}', '{"a":[1],"b":2}') == 1
    assert warnings == []
    assert functions.json_contains_path(warnings, "[1]", "any", "$") is None
    assert functions.json_equals(warnings, "[1", "1") is None
    assert [code for _, _, code, _ in warnings] == [4046, 4037]
