"""MariaDB 10.11's JSON functions that read, compare and write documents, against a live MariaDB:
each statement runs on a stock MariaDB and on our master, and the answers (rows, each column's
name, type code and decimals, the statement's warnings) are compared.

Covered: JSON_SET / JSON_INSERT at an index past an array's end (or before its start), which
append (they answered the document unchanged), `[n]` of what is not an array, keys added and
replaced, values as MariaDB writes them; and the functions that were 1305: JSON_CONTAINS_PATH
(one / all, wildcards), JSON_SEARCH (one / all, LIKE's % and _, case-insensitive, an escape
character, paths), JSON_OVERLAPS, JSON_EQUALS, JSON_NORMALIZE (members by key, numbers in E
notation), JSON_PRETTY / JSON_DETAILED (MariaDB's layout, a tab size), JSON_LOOSE, JSON_EXISTS,
JSON_QUERY (the container as the document writes it), JSON_MERGE / JSON_MERGE_PRESERVE; with
JSON_VALUE and JSON_MERGE_PATCH (values as written, a warning for text that is not JSON); NULL
arguments, the warnings for text that is not JSON (4037), a path MariaDB refuses (4041, 4044)
and a mode that is neither "one" nor "all" (4046), 1582 for a wrong count of arguments, 1210
for a longer escape; and an INSERT / UPDATE writing them, replayed from the binlog by a MariaDB
replica and by our slave.

Left out, where the two still differ: text that is not JSON past where MariaDB's scanner stops
(JSON_SEARCH 'one' finding a match before the error, JSON_OVERLAPS and JSON_EXISTS answering
from a document's start): MariaDB answers from what it read, here such text is not JSON."""

from __future__ import annotations

import pymysql
import pytest

from tests.support.daemons import wait_for
from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import (
    described_answers,
    mariadb_and_ours,
    reference_ours_and_replicas,
)

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.j (id INT PRIMARY KEY, doc JSON, s VARCHAR(40))",
    "INSERT INTO d.j VALUES (1, '[1, 2]', 'x'), (2, '{\"a\": [1], \"b\": \"abc\"}', NULL)",
]

QUERIES = [
    "SELECT JSON_INSERT('[1]', '$[5]', 2), JSON_SET('[1]', '$[5]', 2), JSON_ARRAY_INSERT('[1]', '$[5]', 2),"
    " JSON_SET('[1]', '$[5]', 2, '$[9]', 3), JSON_INSERT('[1]', '$[5]', 2, '$[5]', 3)",
    "SELECT JSON_INSERT('1', '$[1]', 2), JSON_SET('{\"a\":1}', '$[3]', 2), JSON_SET('1', '$[0]', 2),"
    " JSON_INSERT('1', '$[0]', 2), JSON_SET('[1]', '$', 9), JSON_INSERT('[1]', '$', 9), JSON_SET('[1,2]', '$[-5]', 9),"
    " JSON_SET('{\"a\":1}', '$.a[1]', 9), JSON_REPLACE('{\"a\":1}', '$.b', 9), JSON_SET('[1]', '$.a', 9),"
    " JSON_SET('{\"a\":1}', '$[last]', 9), JSON_REPLACE('[1]', '$[5]', 2), JSON_REPLACE('1', '$[0]', 2)",
    "SELECT JSON_SET('{\"a\":1}', '$.b.c', 2), JSON_SET('{\"a\":[1]}', '$.a[3]', 2), JSON_SET('[1]', '$[last]', 5),"
    " JSON_INSERT('[1]', '$[-1]', 5), JSON_SET(NULL, '$', 1), JSON_SET('[1]', NULL, 1), JSON_INSERT('{\"a\":[]}', '$.a[0]', 5)",
    "SELECT JSON_SET('[1]', '$[5]', 1.50), JSON_SET('[1]', '$[5]', 'x'), JSON_SET('[1]', '$[5]', JSON_ARRAY(1,2)),"
    " JSON_SET('[1]', '$[5]', TRUE), JSON_SET('[1]', '$[5]', NULL), JSON_INSERT('{\"a\":1}', '$.b', JSON_OBJECT('x',1)),"
    " JSON_SET('{\"a\" :  1.50, \"b\":[ 1 ]}', '$.c', 1), JSON_SET('{\"a\":1}', '$.a', 1e2), JSON_SET('{\"a\":1,\"a\":2}', '$.a', 3)",
    "SELECT JSON_SET('[1', '$[5]', 2)",
    "SELECT JSON_SET('[1]', '$[*]', 2)",
    "SELECT JSON_CONTAINS_PATH('{\"a\":1}', 'one', '$.a'), JSON_CONTAINS_PATH('{\"a\":1,\"b\":2}', 'all', '$.a', '$.c'),"
    " JSON_CONTAINS_PATH('{\"a\":1}', 'ONE', '$.c', '$.a'), JSON_CONTAINS_PATH(NULL, 'one', '$.a'),"
    " JSON_CONTAINS_PATH('{\"a\":1}', NULL, '$.a'), JSON_CONTAINS_PATH('{\"a\":1}', 'one', NULL),"
    " JSON_CONTAINS_PATH('{\"a\":[1,2]}', 'one', '$.a[*]'), JSON_CONTAINS_PATH('{\"a\":[1,2]}', 'one', '$**.a'),"
    " JSON_CONTAINS_PATH('[1,2]', 'one', '$[5]'), JSON_CONTAINS_PATH('{\"a\":1}', 'one', '$[0]')",
    "SELECT JSON_CONTAINS_PATH('{\"a\":1}', 'x', '$.a')",
    "SELECT JSON_CONTAINS_PATH('{\"a\":1', 'one', '$.a')",
    "SELECT JSON_CONTAINS_PATH('{\"a\":1}', 'one', '$.a[')",
    "SELECT JSON_CONTAINS_PATH('{\"a\":1}', 'one')",
    "SELECT JSON_SEARCH('[\"abc\",\"x\"]', 'one', 'abc'), JSON_SEARCH('[\"abc\",\"x\",{\"k\":\"abc\"},[\"abc\"]]', 'all', 'abc'),"
    " JSON_SEARCH('[\"abc\",\"x\"]', 'one', 'a%'), JSON_SEARCH('[\"abc\",\"x\"]', 'all', '_'), JSON_SEARCH('[\"abc\",\"x\"]', 'one', 'zz')",
    "SELECT JSON_SEARCH('[\"a%c\",\"abc\"]', 'all', 'a|%c', '|'), JSON_SEARCH('[\"a%c\",\"abc\"]', 'all', 'a\\\\%c'),"
    " JSON_SEARCH('{\"a\":[\"x\"],\"b\":\"x\"}', 'all', 'x', NULL, '$.a'), JSON_SEARCH('{\"a\":[\"x\"],\"b\":\"x\"}', 'all', 'x', NULL, '$.a', '$.b')",
    "SELECT JSON_SEARCH(NULL, 'one', 'a'), JSON_SEARCH('[\"a\"]', NULL, 'a'), JSON_SEARCH('[\"a\"]', 'one', NULL),"
    " JSON_SEARCH('[\"a\"]', 'one', 'a', NULL), JSON_SEARCH('[\"a\"]', 'one', 'a', 'x', NULL)",
    "SELECT JSON_SEARCH('[\"A\"]', 'one', 'a'), JSON_SEARCH('[1,\"1\",true]', 'all', '1'), JSON_SEARCH('[1,\"1\",true,\"true\"]', 'all', 'true'),"
    " JSON_SEARCH('\"abc\"', 'one', 'abc'), JSON_SEARCH('{\"a b\":\"x\"}', 'one', 'x')",
    "SELECT JSON_SEARCH('[\"a\"]', 'foo', 'a')",
    "SELECT JSON_SEARCH('[\"a\"]', 'one', 'a', 'xx')",
    "SELECT JSON_OVERLAPS('[1,2]', '[2]'), JSON_OVERLAPS('[1,2]', '[3]'), JSON_OVERLAPS('{\"a\":1,\"b\":2}', '{\"a\":1}'),"
    " JSON_OVERLAPS('{\"a\":1}', '{\"a\":2}'), JSON_OVERLAPS('1', '1'), JSON_OVERLAPS('[1]', '1'), JSON_OVERLAPS('1', '[1]'),"
    " JSON_OVERLAPS('[[1]]', '[1]'), JSON_OVERLAPS(NULL, '1'), JSON_OVERLAPS('{\"a\":[1]}', '{\"a\":[1]}'),"
    " JSON_OVERLAPS('[1.0]', '[1]'), JSON_OVERLAPS('[\"a\"]', '[\"A\"]'), JSON_OVERLAPS('[null]', '[null]'),"
    " JSON_OVERLAPS('{}', '{}'), JSON_OVERLAPS('[]', '[]')",
    "SELECT JSON_EQUALS('{\"a\":1}', '{\"a\":1}'), JSON_EQUALS('{\"a\":1,\"b\":2}', '{\"b\":2,\"a\":1}'), JSON_EQUALS('[1,2]', '[2,1]'),"
    " JSON_EQUALS('1', '1.0'), JSON_EQUALS('\"a\"', '\"A\"'), JSON_EQUALS(NULL, '1'), JSON_EQUALS('[1]', '[1 ]')",
    "SELECT JSON_EQUALS('[1', '1')",
    "SELECT JSON_NORMALIZE('{\"b\":1,\"a\":2}'), JSON_NORMALIZE('[1, 2.5, \"x\", true, null, {\"b\":[], \"a\":{}}]'),"
    " JSON_NORMALIZE('-0'), JSON_NORMALIZE('1e300'), JSON_NORMALIZE('0.1'), JSON_NORMALIZE('\"\\\\u0041\"'), JSON_NORMALIZE(NULL),"
    " JSON_NORMALIZE('{\"a\":1,\"a\":2}'), JSON_NORMALIZE('123456789012345678901234567890'), JSON_NORMALIZE('1.5e-7'),"
    " JSON_NORMALIZE('100'), JSON_NORMALIZE('12345678'), JSON_NORMALIZE('0.000001'), JSON_NORMALIZE('[-1.25]')",
    "SELECT JSON_NORMALIZE('[1')",
    "SELECT JSON_PRETTY('[1,2]'), JSON_DETAILED('{\"a\":[1,{\"b\":2}],\"c\":{}}'),"
    " JSON_PRETTY('{\"a\":1,\"b\":[true,null,\"x\"],\"c\":[],\"d\":{\"e\":{}}}'), JSON_PRETTY('1'), JSON_PRETTY('\"s\"'),"
    " JSON_PRETTY('[]'), JSON_PRETTY('{}'), JSON_PRETTY(NULL), JSON_PRETTY('[[1,[2]],{\"a\":[]}]')",
    "SELECT JSON_PRETTY('[1]'), JSON_PRETTY('[[1]]'), JSON_PRETTY('{\"a\":[[1]]}'), JSON_PRETTY('[\"x\"]'), JSON_PRETTY('[{}]'),"
    " JSON_PRETTY('[[]]'), JSON_PRETTY('[1,[2,3]]'), JSON_PRETTY('[{\"a\":1}]')",
    "SELECT JSON_DETAILED('[1,2]', 2), JSON_DETAILED('{\"a\":[1]}', 0), JSON_DETAILED('{\"a\":[1]}', 1),"
    " JSON_DETAILED('[1.50, 1e2, \"a\\\\tb\"]')",
    "SELECT JSON_PRETTY('[1')",
    "SELECT JSON_LOOSE('[1, 2]'), JSON_LOOSE('{\"a\":1,\"b\":[1,2]}'), JSON_LOOSE('  [ 1 ,2 ] '), JSON_LOOSE(NULL),"
    " JSON_LOOSE('1'), JSON_LOOSE('[1.50,{}]')",
    "SELECT JSON_LOOSE('[1')",
    "SELECT JSON_EXISTS('{\"a\":1}', '$.a'), JSON_EXISTS('{\"a\":1}', '$.b'), JSON_EXISTS(NULL, '$.a'), JSON_EXISTS('{\"a\":1}', NULL),"
    " JSON_EXISTS('[1,2]', '$[1]'), JSON_EXISTS('[1,2]', '$[*]'), JSON_EXISTS('{\"a\":1}', '$.a[')",
    "SELECT JSON_QUERY('{\"a\":[1]}', '$.a'), JSON_QUERY('{\"a\":1}', '$.a'), JSON_QUERY('{\"a\":{\"b\":1}}', '$.a'),"
    " JSON_QUERY('{\"a\":[1, 2]}', '$'), JSON_QUERY(NULL, '$'), JSON_QUERY('[1]', NULL), JSON_QUERY('[1,[2,3]]', '$[1]'),"
    " JSON_QUERY('{\"a\":[1,  2]}', '$.a'), JSON_QUERY('[1', '$')",
    "SELECT JSON_QUERY('[1]', '$[')",
    "SELECT JSON_VALUE('{\"a\":\"x\"}', '$.a'), JSON_VALUE('{\"a\":[1]}', '$.a'), JSON_VALUE('{\"a\":1.50}', '$.a'),"
    " JSON_VALUE('{\"a\":null}', '$.a'), JSON_VALUE('{\"a\":true}', '$.a'), JSON_VALUE('[1', '$')",
    "SELECT JSON_MERGE('[1]', '[2]'), JSON_MERGE('[1]', '[2]', '{\"a\":1}'), JSON_MERGE('{\"a\":1}', '{\"a\":[2],\"b\":3}'),"
    " JSON_MERGE('1', '2'), JSON_MERGE('{\"a\":1}', '[2]'), JSON_MERGE('[1]', NULL),"
    " JSON_MERGE_PRESERVE('{\"a\":1}', '{\"a\":2,\"b\":3}'), JSON_MERGE_PRESERVE('{\"a\":{\"b\":1}}', '{\"a\":{\"b\":2,\"c\":3}}')",
    "SELECT JSON_MERGE('[1', '[2]')",
    "SELECT JSON_MERGE('[1]')",
    "SELECT JSON_MERGE_PATCH('{\"a\":1}', '{\"a\":null,\"b\":3}'), JSON_MERGE_PATCH('[1]', '[2]'),"
    " JSON_MERGE_PATCH('{\"a\":{\"b\":1}}', '{\"a\":{\"c\":2}}'), JSON_MERGE_PATCH('{\"a\":1}', NULL),"
    " JSON_MERGE_PATCH(NULL, '{\"a\":1}'), JSON_MERGE_PATCH('{\"a\":1.50}', '{\"b\":1e2}')",
    "SELECT JSON_MERGE_PATCH('[1', '[2]')",
    "SELECT id, JSON_SEARCH(doc, 'all', '%b%'), JSON_CONTAINS_PATH(doc, 'one', '$.a', '$[1]'), JSON_QUERY(doc, '$.a'),"
    " JSON_SET(doc, '$[7]', s), JSON_NORMALIZE(doc), JSON_DETAILED(doc) FROM j ORDER BY id",
]

REPLICATED = [
    "INSERT INTO j VALUES (3, JSON_SET('[1]', '$[5]', 2, '$.x', 'y'), JSON_NORMALIZE('{\"b\":1,\"a\":2}'))",
    "INSERT INTO j VALUES (4, JSON_MERGE('[1]', '{\"a\": 1.50}'), JSON_SEARCH('[\"x\",\"abc\"]', 'one', 'a%'))",
    "UPDATE j SET doc = JSON_INSERT(doc, '$[9]', id), s = JSON_LOOSE(JSON_QUERY(doc, '$')) WHERE id < 3",
    "UPDATE j SET s = JSON_PRETTY(doc) WHERE id = 4",
]


def test_json_functions_answer_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        for server in (reference, master):
            for sql in SETUP:
                server.query(sql)
        theirs, ours = (described_answers(server.port, "d", QUERIES) for server in (reference, master))
    assert theirs[0][1] == (("[1, 2]", "[1, 2]", "[1, 2]", "[1, 2, 3]", "[1, 2, 3]"),)
    assert [(t, o) for t, o in zip(theirs, ours, strict=True) if t != o] == []


def _rows(server) -> list[tuple] | None:
    try:
        return server.query("SELECT id, doc, s FROM d.j ORDER BY id")
    except pymysql.MySQLError:
        return None  # (not replicated yet)


def test_json_writes_replicate_as_mariadb_stores_them(tmp_path):
    """The writes through the binlog, replayed by a MariaDB replica and by our slave."""
    with reference_ours_and_replicas(tmp_path, our_slave=True) as (reference, master, replicas):
        for server in (reference, master):
            for sql in SETUP + REPLICATED:
                server.query(sql, database=None if sql.startswith("CREATE DATABASE") else "d")
        want = _rows(reference)
        assert want[2] == (3, '[1, 2]', '{"a":2.0E0,"b":1.0E0}')
        assert _rows(master) == want
        for replica in replicas:
            wait_for(lambda r=replica: _rows(r) == want, 90,
                     message=lambda r=replica: f"{r} to hold the master's rows: {_rows(r)}")
