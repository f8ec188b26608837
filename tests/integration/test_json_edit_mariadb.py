"""JSON_ARRAY_APPEND and JSON_ARRAY_INSERT as MariaDB 10.11 answers them: each statement runs on a
stock MariaDB and on our master, and the answers (rows, each column's name, type code and
decimals, the statement's warnings) are compared.

Covered (both were 1305): a value appended to the array at a path or, where the path leads to
anything else, an array made of it and the value; several path / value pairs in turn; a value
inserted before an index, at the end past it, after the element `[last]` / `[-n]` name; a path
that leads nowhere (APPEND: NULL; INSERT: the document as it was), INSERT's path that names no
array element (NULL); `[0]` of what is not an array (the value itself); the document written
as MariaDB writes an edited one (", ", ": "), its numbers and strings (escapes too) as written;
values as MariaDB writes them (strings escaped, DECIMAL literals and columns by their digits, a
DOUBLE as MariaDB writes it, TRUE / FALSE, NULL, a JSON function's document or a JSON column as
JSON); a JSON_ARRAY_APPEND inside JSON_OBJECT / JSON_ARRAY as JSON; NULL arguments; text that is
not JSON (4036-4038, 4040: NULL with MariaDB's warning and position) and paths MariaDB refuses
(4041, 4042, 4044 for wildcards and ranges), an error in a strict INSERT and a warning under
INSERT IGNORE; 1582 for a wrong count of arguments; in an UPDATE (binlogged as the statement).

Left out, where the two still differ: a comparison as the value (`1 = 1`: MariaDB's true, 1
here); the NULL document's column (MariaDB types it binary, utf8mb4 here); display lengths (not
compared); a document whose error MariaDB finds only in the text it edited (`'[1] x'`, or an
INSERT before the error): its warning gives the position in that text (here in the argument's);
an empty key without its ':' (`'{"" 1}'`) one character further on in MariaDB."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import described_answers, mariadb_and_ours

pytestmark = pytest.mark.skipif(not mariadb_available(), reason="MariaDB is not installed")

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.j (id INT PRIMARY KEY, doc JSON, s VARCHAR(40), n DECIMAL(5,2), f DOUBLE)",
    "INSERT INTO d.j VALUES (1, '[1, 2]', 'x', 1.50, 2.5), (2, '{\"a\": [1]}', NULL, NULL, NULL),"
    " (3, '\"s\"', 'y', -3.00, -1)",
]

QUERIES = [
    "SELECT JSON_ARRAY_APPEND('[1,2]', '$', 3), JSON_ARRAY_INSERT('[1,2]', '$[0]', 0)",
    "SELECT JSON_ARRAY_APPEND('[1, [2, 3], 4]', '$[1]', 'x', '$', 5), JSON_ARRAY_APPEND('{\"a\": 1}', '$.a', 2),"
    " JSON_ARRAY_APPEND('{\"a\": 1}', '$', 2), JSON_ARRAY_APPEND('{\"a\": 1}', '$.b', 2),"
    " JSON_ARRAY_APPEND('[1,2]', '$[5]', 3), JSON_ARRAY_APPEND('\"s\"', '$', 2), JSON_ARRAY_APPEND('{}', '$', 2)",
    "SELECT JSON_ARRAY_APPEND('[1,2]', '$[last]', 3), JSON_ARRAY_APPEND('[1,[2],3]', '$[-2]', 'x'),"
    " JSON_ARRAY_APPEND('[1]', '$[-3]', 2), JSON_ARRAY_APPEND('{\"a\":1}', '$[0]', 2),"
    " JSON_ARRAY_APPEND('{\"a\":1}', '$[last]', 2), JSON_ARRAY_APPEND('{\"a\":[1]}', '$[0].a', 2)",
    "SELECT JSON_ARRAY_APPEND('  [ 1 ,  2.50 ]  ', '$', 3), JSON_ARRAY_APPEND('[\"\\\\u0041\", 1e2]', '$', 'é\\n/'),"
    " JSON_ARRAY_APPEND('{\"a\":1, \"a\":[2]}', '$.a', 3), JSON_ARRAY_APPEND('{\"a b\":[1]}', '$.\"a b\"', 3),"
    " JSON_ARRAY_APPEND('{\"a\":[1]}', 'lax $.a', 'x'), JSON_ARRAY_APPEND('{\"a\":[1]}', '$.a ', 3)",
    "SELECT JSON_ARRAY_APPEND('[1]', '$', 1.50, '$', 'a\"b', '$', TRUE, '$', JSON_OBJECT('k', 1), '$', FALSE),"
    " JSON_ARRAY_APPEND('[1]', '$', 1e2, '$', -1e0, '$', 0.1e0, '$', -0.50, '$', NULL),"
    " JSON_ARRAY_APPEND('[1]', '$', JSON_ARRAY(1,2), '$', JSON_EXTRACT('{\"a\":[3]}', '$.a'), '$', '[5]'),"
    " JSON_ARRAY_APPEND('[1]', '$', CONCAT(CHAR(1), 'a\\tb\\\\c\"'), '$', DATE '2020-01-01', '$', X'41')",
    "SELECT JSON_ARRAY_APPEND(1, '$', 2), JSON_ARRAY_APPEND('null', '$', 2),"
    " JSON_OBJECT('a', JSON_ARRAY_APPEND('[1]', '$', 2)), JSON_ARRAY(JSON_ARRAY_INSERT('[1]', '$[0]', 2))",
    "SELECT JSON_ARRAY_INSERT('[1,2]', '$[1]', 'x'), JSON_ARRAY_INSERT('[1,2]', '$[9]', 'x'),"
    " JSON_ARRAY_INSERT('[1,2]', '$', 'x'), JSON_ARRAY_INSERT('[1,2]', '$.a', 'x'),"
    " JSON_ARRAY_INSERT('{\"a\":[1,2]}', '$.a[1]', 'x'), JSON_ARRAY_INSERT('{\"a\":1}', '$.a[0]', 'x'),"
    " JSON_ARRAY_INSERT('{\"a\":1}', '$.b[0]', 'x'), JSON_ARRAY_INSERT('\"s\"', '$[0]', 'x')",
    "SELECT JSON_ARRAY_INSERT('[1,2]', '$[0]', 'a', '$[0]', 'b'), JSON_ARRAY_INSERT('[1,2]', '$[last]', 'x'),"
    " JSON_ARRAY_INSERT('[1,2,3]', '$[last-1]', 'x'), JSON_ARRAY_INSERT('[1,2]', '$[-2]', 3),"
    " JSON_ARRAY_INSERT('[1]', '$[-5]', 2), JSON_ARRAY_INSERT('[]', '$[last]', 1), JSON_ARRAY_INSERT('[1]', '$[ 0 ]', 'x'),"
    " JSON_ARRAY_INSERT('[[1]]', '$[0][last]', 2), JSON_ARRAY_INSERT('{\"a\":[1]}', '$[0].a[0]', 2)",
    "SELECT JSON_ARRAY_INSERT('[1]', '$[0]', 'a', '$[5]', 'b', '$.x[0]', 'c'), JSON_ARRAY_INSERT('[1]', '$[0]', 'a', '$', 'b'),"
    " JSON_ARRAY_INSERT('[1]', '$[0].a', 2), JSON_ARRAY_APPEND('[1]', '$', 'a', '$.x', 'b')",
    "SELECT JSON_ARRAY_APPEND('[1]', NULL, 3), JSON_ARRAY_APPEND('[1]', '$', NULL, '$', 2),"
    " JSON_ARRAY_INSERT('[1]', '$[0]', NULL, NULL, 1), JSON_ARRAY_INSERT('[1]', NULL, 1, 'x', 2)",
    "SELECT JSON_ARRAY_APPEND('[1', '$', 3)",
    "SELECT JSON_ARRAY_APPEND('[1x]', '$', 3)",
    "SELECT JSON_ARRAY_APPEND('not', '$', 3)",
    "SELECT JSON_ARRAY_APPEND('{\"a\" 1}', '$', 3)",
    "SELECT JSON_ARRAY_APPEND('{\"a\":1,}', '$', 3)",
    "SELECT JSON_ARRAY_APPEND(CONCAT('[\"', CHAR(1), '\"]'), '$', 3)",
    "SELECT JSON_ARRAY_APPEND('[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]', '$', 3)",
    "SELECT JSON_ARRAY_APPEND('[-]', '$', 1), JSON_ARRAY_APPEND('[1.]', '$', 1), JSON_ARRAY_APPEND('[\"\\\\x\"]', '$', 1)",
    "SELECT JSON_ARRAY_APPEND('[1]', 'x', 3)",
    "SELECT JSON_ARRAY_APPEND('[1]', '$[', 3)",
    "SELECT JSON_ARRAY_APPEND('[1]', '', 3)",
    "SELECT JSON_ARRAY_APPEND('[1]', '$**', 3)",
    "SELECT JSON_ARRAY_APPEND('[1]', '$a', 3)",
    "SELECT JSON_ARRAY_APPEND('[1]', '$[a]', 3)",
    "SELECT JSON_ARRAY_APPEND('{\"a\":[1]}', ' $ . a ', 'x')",
    "SELECT JSON_ARRAY_APPEND('[1]', '$[*]', 3), JSON_ARRAY_INSERT('[1]', '$[0 to 1]', 3)",
    "SELECT JSON_ARRAY_INSERT('[1]', 'x', 1, NULL, 2)",
    "SELECT JSON_ARRAY_APPEND('[1]', '$')",
    "SELECT JSON_ARRAY_INSERT('[1]', '$[0]', 1, '$')",
    "SELECT id, JSON_ARRAY_APPEND(doc, '$', s), JSON_ARRAY_APPEND(doc, '$.a', n), JSON_ARRAY_INSERT(doc, '$[0]', f),"
    " JSON_ARRAY_APPEND('[0]', '$', doc), JSON_ARRAY_APPEND('[0]', '$', n), JSON_ARRAY_APPEND('[0]', '$', f)"
    " FROM j ORDER BY id",
    "UPDATE j SET doc = JSON_ARRAY_APPEND(doc, '$', id) WHERE id < 3",
    "SELECT id, doc FROM j ORDER BY id",
    "INSERT INTO j (id, s) VALUES (4, JSON_ARRAY_APPEND('[1', '$', 1))",
    "INSERT INTO j (id, s) VALUES (5, JSON_ARRAY_INSERT('[1]', '$[0]', 1.50))",
    "INSERT IGNORE INTO j (id, s) VALUES (6, JSON_ARRAY_APPEND('[1]', 'x', 1))",
    "SELECT id, s FROM j WHERE id > 3 ORDER BY id",
]


def test_json_array_append_and_insert_answer_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        for server in (reference, master):
            for sql in SETUP:
                server.query(sql)
        theirs, ours = (described_answers(server.port, "d", QUERIES) for server in (reference, master))
    assert ("SELECT JSON_ARRAY_APPEND('[1,2]', '$', 3), JSON_ARRAY_INSERT('[1,2]', '$[0]', 0)",
            (("[1, 2, 3]", "[0, 1, 2]"),)) == theirs[0][:2]
    assert [(t, o) for t, o in zip(theirs, ours, strict=True) if t != o] == []
