"""MySQL's functions and operators answer as MariaDB 10.11's: each statement runs on a stock MariaDB and
on our master over the text protocol and the answers (values and their types as PyMySQL reads
them, or the error) are compared. Arithmetic and its rounding (ROUND and CAST to an integer: half
away from zero for DECIMAL, half to even for DOUBLE; a string's leading number in arithmetic),
string functions (TRIM's LEADING / TRAILING / BOTH, QUOTE, SPACE, BIN, OCT, ORD), date and time
functions (DATE_FORMAT's every specifier, WEEK and YEARWEEK in all modes, DAYNAME, TIME_TO_SEC,
SEC_TO_TIME, TIMEDIFF, ADDTIME, MAKEDATE, MAKETIME, TIME(), TIMESTAMP(), EXTRACT, CONVERT_TZ with
offsets, PERIOD_ADD, TO_DAYS / FROM_DAYS, HOUR of a TIME, dates written '2024-1-5' or 20240105),
CAST to DATE / DATETIME / TIME / CHAR(n) / SIGNED / UNSIGNED, LOG, STDDEV / VARIANCE (MariaDB's
recurrence and its 4 more decimals), PI()'s 6 decimals, SUBSTRING's edges and its FROM / FOR form,
POSITION(x IN y), MOD, XOR, IS UNKNOWN, N'...', JSON_LENGTH / KEYS / TYPE, MAKE_SET, EXPORT_SET,
GROUP BY ... WITH ROLLUP (super-aggregate rows in MariaDB's order, HAVING over them, ORDER BY 1221),
a view whose SELECT compares a DECIMAL column with a literal or a column with a _binary literal
(its literals were read from the outer statement's: an IndexError, or no rows),
QUARTER, BIT_LENGTH, WEEKOFYEAR, INTERVAL(N, N1, ...), JSON_ARRAYAGG / JSON_OBJECTAGG, JSON_COMPACT, DECIMAL / DOUBLE columns and
expressions (SUM(c), c * 2, e / 2) inside JSON_OBJECT / JSON_ARRAY / JSON_SET / JSON_ARRAYAGG (JSON
numbers written as MariaDB writes them: 1.50, -1), INET_ATON / INET_NTOA, TIME_FORMAT, JSON_MERGE_PATCH, GREATEST /
LEAST (strings by the collation, numbers with strings as DOUBLEs, dates with strings as dates), a
DOUBLE written as a string (CONCAT, CAST AS CHAR: -1, 1e15, 0.00000015), the types of date +
INTERVAL, DATE_ADD and STR_TO_DATE (DATE, DATETIME or TIME by the operand and the unit or the
format), HAVING naming a select alias that is also a column's name, locking reads with NOWAIT, WAIT n
and SKIP LOCKED, typed literals DATE 'x' / TIME 'x' / TIMESTAMP 'x' (selected, compared, computed
on, stored; 1525 for a text that is no such value: they were 1064), a number column against a
string that holds no number ('', '2abc': it compared as a text, above every number), CHARSET(x)
and COLLATION(x) of literals, columns, numbers, times and binary strings (they were 1305; SET
NAMES latin1 made the connection's collation latin1_general_ci, not latin1_swedish_ci), GROUP_CONCAT(DISTINCT ...) by the collation ('a', 'A' and 'a ' one value), a
scalar subquery of more than one row 1242 (it gave its first row; an aggregate
without GROUP BY, a subquery reading no table and a derived table are not checked), subqueries,
joins, UNION, window functions, CTEs, NULL handling, aggregates, ordering; arithmetic on literals
only (`0.1 + 0.2`, an exact DECIMAL) under IN and BETWEEN; BINARY x outside a comparison (a binary
string: selected, ordered, grouped, concatenated); adjacent string literals ('a' 'b' is 'ab');
user variables assigned in a SELECT (@r := @r + 1 row by row, in the select list and WHERE).

Left out, where the two still differ (MariaDB's answer first): ROUND(2.5e0) 2 (here 3: the
literal 2.5e0 reaches the engine as the same float as the DECIMAL 2.5); 0.1e0 + 0.2e0 = 0.3e0
false (true: computed as DECIMALs); 2/3*3 2.0000 (2.0001: the division's digits are rounded at
once, MariaDB keeps 9); -9223372036854775808 a BIGINT (a double here); 9223372036854775807 + 1
error 1690 (a DECIMAL here); CONCAT(1.50, '') '1.50' ('1.5'); REPLACE of a DOUBLE (SQLite's
replace() writes -1 as '-1.0'); QUOTE(NULL) and CHAR() binary strings;
JSON_INSERT at an index past an array's end (MariaDB appends, SQLite's
json_insert only at $[#]); TRUE inside JSON_ARRAY / JSON_OBJECT is 1 (MariaDB's true); a UNION of an INT and a
DECIMAL column ordered with the integers first; LEAD / LAG with a default (MariaDB 10.11 refuses
it); WITH ROLLUP's text group values ordered binary
(MariaDB: by the column's collation); a user variable assigned in the select list of a
SELECT ordered by other than its table's integer primary key, or in a statement that writes
(INSERT ... SELECT @x := ..., UPDATE ... SET c = @x := ...), refused with 1235; JSON_ARRAYAGG / JSON_OBJECTAGG with DISTINCT, ORDER BY, LIMIT or OVER refused with 1235; a number
literal inside JSON_OBJECT / JSON_ARRAY written from its value (2.50 as 2.5, 1e3 as 1000.0);
DATE x'..' a syntax error 1064 (1525 here); a TIME literal stored in a DATE / DATETIME / TIMESTAMP
column dated today (refused with 1235); CHARSET() / COLLATION() of a string function's result
(CONCAT('a', 1) utf8mb4, USER() utf8mb3), of N'x' (utf8mb3) or _latin1'x', of a variable (@v
binary, @@version utf8mb3_general_ci), of a derived table's column, of `1 COLLATE utf8mb4_bin`
(utf8mb4_bin) refused with 1235; CHARSET() of a column declared in another character set
(latin1: MariaDB's latin1, latin1_swedish_ci) utf8mb4, utf8mb4_general_ci here, the character set
the catalog holds every column in (as SHOW FULL COLUMNS shows it)."""

from __future__ import annotations

import pytest

from tests.support.mariadb import mariadb_available
from tests.support.mariadb_compare import both_answer, mariadb_and_ours

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(not mariadb_available(), reason="mariadb-server not installed"),
]

SETUP = [
    "CREATE DATABASE d",
    "CREATE TABLE d.t (id INT PRIMARY KEY, a INT, b VARCHAR(20), c DECIMAL(10,2), d DATE, e DOUBLE)"
    " DEFAULT CHARSET=utf8mb4",
    "INSERT INTO d.t VALUES (1, 5, 'x', 1.50, '2024-01-05', 0.1), (2, NULL, 'y', NULL, NULL, NULL),"
    " (3, -7, 'x', 2.25, '2023-12-31', 2.5), (4, 5, NULL, 0, '2024-02-29', -1)",
]

QUERIES = [
    'SELECT 1/0, 5 DIV 2, 7 % 3, -7 % 3, 7 MOD -3',
    "SELECT 'abc' + 1, '3x' * 2, CAST('12abc' AS SIGNED), CAST('-5' AS UNSIGNED), CAST(1.7 AS SIGNED)",
    "SELECT CONCAT(1, 2), CONCAT('a', NULL), CONCAT_WS(',', 'a', NULL, 'b'), LENGTH('é'), CHAR_LENGTH('é')",
    "SELECT UPPER('ß'), LOWER('ÀB'), SUBSTRING('hello', -3), SUBSTRING('hello', 2, 2), LOCATE('l', 'hello'), INSTR('hello', 'lo')",
    "SELECT REPLACE('aaa', 'a', 'bb'), LPAD('5', 3, '0'), RPAD('ab', 1, 'x'), TRIM(' a '), TRIM(LEADING 'x' FROM 'xxaxx')",
    "SELECT LEFT('hello', 2), RIGHT('hello', 2), REVERSE('abc'), REPEAT('ab', 3), SPACE(2), ASCII('A'), ORD('é')",
    "SELECT IF(NULL, 1, 2), IFNULL(NULL, 'x'), NULLIF(1, 1), COALESCE(NULL, NULL, 3), ISNULL(NULL), 1 <=> NULL, NULL <=> NULL",
    "SELECT DATE_FORMAT('2024-01-05 13:04:05', '%Y/%m/%d %H:%i:%s %W %M %j %a %b %e %c %p %r %T')",
    "SELECT DATEDIFF('2024-03-01', '2024-02-01'), TIMESTAMPDIFF(MONTH, '2024-01-31', '2024-02-29'), LAST_DAY('2024-02-10')",
    "SELECT DAYNAME('2024-01-05'), MONTHNAME('2024-01-05'), WEEK('2024-01-05'), YEARWEEK('2024-01-05'), DAYOFWEEK('2024-01-05'), WEEKDAY('2024-01-05')",
    "SELECT '2024-01-05' + INTERVAL 1 DAY, ADDDATE('2024-01-05', 3), SUBDATE('2024-01-05', 3)",
    "SELECT YEAR('2024-01-05'), MONTH('2024-01-05'), DAY('2024-01-05'), HOUR('10:11:12'), MINUTE('10:11:12'), SECOND('10:11:12')",
    "SELECT FROM_UNIXTIME(0), UNIX_TIMESTAMP('1970-01-02 00:00:00'), TIME_TO_SEC('01:00:00'), SEC_TO_TIME(3661)",
    'SELECT 5 & 3, 5 | 3, 5 ^ 3, BIT_COUNT(7), 1 << 2, 16 >> 2',
    "SELECT SUM(a), AVG(a), COUNT(a), COUNT(*), MIN(b), MAX(b), SUM(c), AVG(c), SUM(e), GROUP_CONCAT(b ORDER BY id DESC SEPARATOR '|') FROM t",
    'SELECT SUM(a) FROM t WHERE id > 100',
    'SELECT b, COUNT(*) FROM t GROUP BY b ORDER BY b',
    'SELECT id FROM t ORDER BY a, id',
    'SELECT id FROM t ORDER BY a DESC, id',
    'SELECT id FROM t ORDER BY b DESC, id',
    'SELECT a, b FROM t GROUP BY a ORDER BY a',
    "SELECT HEX(255), HEX('ab'), UNHEX('6162'), CONV(255, 10, 16), BIN(5), OCT(8)",
    "SELECT MD5('a'), SHA1('a'), SHA2('a', 256), CRC32('a'), TO_BASE64('ab'), FROM_BASE64('YWI=')",
    "SELECT 'a' LIKE 'A', 'abc' REGEXP '^a', 'abc' RLIKE 'B', 'a_c' LIKE 'a\\_c', 'abc' NOT LIKE 'a%'",
    'SELECT 1 IN (1, 2), 3 NOT IN (1, 2), NULL IN (1, 2), 1 IN (NULL, 1), 2 IN (NULL, 1), 2 BETWEEN 1 AND 3',
    'SELECT TRUE, FALSE, TRUE + TRUE, NOT 0, !1, 1 XOR 1, 1 AND NULL, 0 AND NULL, 1 OR NULL',
    "SELECT CAST(1 AS CHAR), CAST('2024-01-05' AS DATE), CAST('10:11' AS TIME), CAST(1.999 AS DECIMAL(5,2)), CAST(3 AS DOUBLE)",
    "SELECT CONVERT('abc', CHAR(2)), CAST(-1 AS UNSIGNED), CAST(18446744073709551615 AS SIGNED)",
    'SELECT id, a / 2, a DIV 2, c * 2, c / 3, e * 2 FROM t ORDER BY id',
    "SELECT id, CASE a WHEN 5 THEN 'five' WHEN -7 THEN 'neg' ELSE 'other' END FROM t ORDER BY id",
    "SELECT id, a > 0 AND b = 'x' FROM t ORDER BY id",
    'SELECT DISTINCT a FROM t ORDER BY a',
    'SELECT id FROM t LIMIT 1, 2',
    'SELECT id FROM t WHERE b IS NULL OR a IS NOT NULL ORDER BY id',
    "SELECT id FROM t WHERE b <> 'x' ORDER BY id",
    'SELECT id, IFNULL(a, 0) + 1 FROM t ORDER BY id',
    'SELECT 1.0, 1.50, 100, -0.0, 1e3, 1.5e-3, .5',
    "SELECT CAST('1.7' AS SIGNED), CAST('1e3' AS SIGNED), CAST(' 12' AS SIGNED), CAST('-5' AS SIGNED), CAST('abc' AS SIGNED), CAST('' AS SIGNED)",
    "SELECT CAST('-5' AS UNSIGNED), CAST(-1 AS UNSIGNED), CAST(18446744073709551615 AS SIGNED), CAST('18446744073709551615' AS UNSIGNED), CAST('99999999999999999999' AS SIGNED)",
    "SELECT CAST(1.7 AS UNSIGNED), CAST(-1.7 AS UNSIGNED), CAST('1.7' AS UNSIGNED), CAST(NULL AS SIGNED), CAST(c AS SIGNED), CAST(e AS SIGNED), CAST(b AS SIGNED) FROM t ORDER BY id",
    "SELECT CAST(9.5e18 AS SIGNED), CAST(-9.5e18 AS SIGNED), CAST(1e20 AS UNSIGNED), CAST(TRUE AS SIGNED), CAST('0x10' AS SIGNED)",
    'SELECT CAST(c AS UNSIGNED), CAST(a AS UNSIGNED), CAST(a / 2 AS SIGNED) FROM t ORDER BY id',
    "SELECT '3x' * 2, '3x' + 0, '1.5abc' + 1, 'x' * 1",
    "SELECT TRIM(LEADING 'x' FROM 'xxaxx'), TRIM(TRAILING 'xy' FROM 'axyxy'), TRIM(BOTH 'ab' FROM 'ababcab'), TRIM('x' FROM 'xax'), TRIM(LEADING FROM '  a  '), TRIM(' a ')",
    'SELECT 1 XOR 1, 1 XOR 0, 0 XOR 0, 1 XOR NULL, a XOR 1 FROM t ORDER BY id',
    "SELECT N'nat', n'x', _utf8mb4'y'",
    'SELECT SPACE(2), SPACE(0), BIN(5), BIN(-1), OCT(8), BIT_COUNT(7), BIT_COUNT(-1)',
    "SELECT DAYNAME('2024-01-05'), MONTHNAME('2024-1-5'), DAYNAME(NULL), DAYNAME('x')",
    "SELECT TIME_TO_SEC('01:00:00'), TIME_TO_SEC('-01:00:30'), TIME_TO_SEC('2024-01-05 10:00:00'), SEC_TO_TIME(3661), SEC_TO_TIME(-61), SEC_TO_TIME(99999999)",
    "SELECT HOUR('10:11:12'), MINUTE('10:11:12'), SECOND('10:11:12'), HOUR('838:00:00'), HOUR('2024-01-05 13:14:15'), HOUR(101112), MINUTE('2024-1-5 1:2:3')",
    "SELECT DATE_FORMAT('2024-01-05 13:04:05', '%Y/%m/%d %H:%i:%s %W %M %j %a %b %e %c %p %r %T %D %k %l %w %U %u %V %v %X %x %% %z')",
    "SELECT DATE_FORMAT('2024-12-30', '%U %u %V %v %X %x'), DATE_FORMAT('2021-01-01', '%U %u %V %v %X %x'), DATE_FORMAT('2024-1-5', '%d')",
    "SELECT WEEK('2024-01-05'), WEEK('2024-01-05', 1), WEEK('2024-12-30', 3), WEEK('2021-01-01', 2), WEEK('2021-01-01', 5), WEEK('2021-01-03', 7), YEARWEEK('2021-01-01'), YEARWEEK('2024-12-30', 1)",
    "SELECT YEAR('2024-1-5'), MONTH(20240105), DAY('2024/01/05'), DATEDIFF('2024-3-1', '2024-2-1'), LAST_DAY('2024-2-5'), DAYOFWEEK('2024-1-5')",
    "SELECT DATE_ADD('2024-1-31', INTERVAL 1 MONTH), '2024-1-5' + INTERVAL 1 DAY, UNIX_TIMESTAMP('1970-1-2'), TIMESTAMPDIFF(DAY, '2024-1-1', '2024-1-5')",
    'SELECT CAST(1.7 AS SIGNED), CAST(-1.5 AS SIGNED), CAST(2.5 AS SIGNED), CAST(3.5e0 AS SIGNED), CAST(1.7 AS SIGNED INTEGER)',
    'SELECT ROUND(e), ROUND(e, 1), ROUND(e * 1), ROUND(c), ROUND(a), ROUND(e + 0.5) FROM t ORDER BY id',
    "SELECT QUOTE('a''b'), QUOTE('a\\\\b'), QUOTE(12)",
    "SELECT STRCMP('a', 'b'), 'a' < 'b', 'B' > 'a', 'a ' = 'a'",
    'SELECT MOD(10, 3), POW(2, 10), SQRT(16), ABS(-3), SIGN(-2), CEIL(1.2), FLOOR(-1.2)',
    "SELECT GREATEST(1, 2, 3), LEAST('a', 'b'), GREATEST(1, NULL), FIELD('b', 'a', 'b'), ELT(2, 'a', 'b')",
    "SELECT CAST('2024-1-5' AS DATE), CAST('2024-01-05 10:11:12.7' AS DATETIME), CAST('2024-01-05 10:11:12.7' AS DATETIME(1)), CAST('x' AS DATE), CAST(20240105 AS DATE)",
    "SELECT CAST('abcdef' AS CHAR(3)), CONVERT('abc', CHAR(2)), CAST(12345 AS CHAR(2))",
    "SELECT ORD('é'), ORD('a'), ORD(''), ORD(NULL)",
    'SELECT JSON_SET(\'{"a":1}\', \'$.b\', 2), JSON_REPLACE(\'{"a":1,"b":[1,2]}\', \'$.a\', 5), JSON_REMOVE(\'{"a":1,"b":2}\', \'$.a\'), JSON_SET(\'{"a": 1}\', \'$.b\', JSON_OBJECT(\'c\', 2))',
    'SELECT JSON_SET(\'{"a": 1}\', \'$.b\', JSON_OBJECT(\'c\', 2)), JSON_INSERT(\'[1]\', \'$[1]\', JSON_ARRAY(2, 3)), JSON_OBJECT(\'x\', JSON_ARRAY(1))',
    "SELECT DATE_FORMAT(_binary'2024-01-05', '%d'), HOUR(_binary'10:11:12'), CAST(_binary'2024-1-5' AS DATE)",
    "SELECT JSON_OBJECT('a', 1, 'b', 'x'), JSON_ARRAY(1, 'a', NULL), JSON_OBJECT('k', JSON_ARRAY(1, JSON_OBJECT('z', 2)))",
    "SELECT JSON_ARRAY(), JSON_OBJECT(), JSON_ARRAY(1.5, 'é'), JSON_OBJECT('a', NULL)",
    "SELECT CONCAT(JSON_ARRAY(1, 2), '!'), JSON_LENGTH(JSON_ARRAY(1, 2, 3)), JSON_EXTRACT(JSON_OBJECT('a', 1), '$.a')",
    'SELECT id, (SELECT MAX(a) FROM t t2 WHERE t2.id < t.id) FROM t ORDER BY id',
    "SELECT id FROM t WHERE a IN (SELECT a FROM t WHERE b = 'x') ORDER BY id",
    'SELECT id FROM t WHERE EXISTS (SELECT 1 FROM t t2 WHERE t2.a = t.a AND t2.id <> t.id) ORDER BY id',
    'SELECT t.id, u.id FROM t JOIN t u ON u.a = t.a AND u.id > t.id ORDER BY 1, 2',
    'SELECT t.id, u.id FROM t LEFT JOIN t u ON u.b = t.b AND u.id <> t.id ORDER BY 1, 2',
    'SELECT a FROM t UNION SELECT b FROM t ORDER BY 1',
    'SELECT b, COUNT(*) c FROM t GROUP BY b HAVING c > 1',
    'SELECT b, SUM(a) FROM t GROUP BY b ORDER BY SUM(a) DESC, b',
    'SELECT id, ROW_NUMBER() OVER (ORDER BY a DESC, id), RANK() OVER (ORDER BY a), SUM(a) OVER (PARTITION BY b ORDER BY id) FROM t ORDER BY id',
    'WITH x AS (SELECT a, b FROM t WHERE a > 0) SELECT b, COUNT(*) FROM x GROUP BY b ORDER BY b',
    'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5) SELECT SUM(i) FROM n',
    'SELECT DISTINCT b FROM t ORDER BY b DESC',
    'SELECT id FROM t ORDER BY CASE WHEN b IS NULL THEN 1 ELSE 0 END, b, id',
    "SELECT IFNULL(a, 'none'), COALESCE(c, 0) + 1, IF(a > 0, 'pos', 'neg') FROM t ORDER BY id",
    "SELECT CONCAT(b, a), CONCAT_WS('-', a, b, c), LENGTH(b), UPPER(b) FROM t ORDER BY id",
    'SELECT id, a, a DIV 2, a MOD 3, a / 3, -a, ABS(a) FROM t ORDER BY id',
    'SELECT JSON_UNQUOTE(JSON_EXTRACT(\'{"a": "x"}\', \'$.a\')), JSON_LENGTH(\'[1, 2, 3]\'), JSON_KEYS(\'{"a": 1, "b": 2}\'), JSON_TYPE(\'[1]\')',
    'SELECT GROUP_CONCAT(DISTINCT b ORDER BY b), GROUP_CONCAT(a), COUNT(DISTINCT b) FROM t',
    'SELECT SQL_CALC_FOUND_ROWS id FROM t LIMIT 1',
    'SELECT id FROM t ORDER BY id LIMIT 2 OFFSET 1',
    "SELECT id FROM t WHERE b LIKE '%x%' OR b LIKE 'y_' ORDER BY id",
    'SELECT id FROM t WHERE a BETWEEN -10 AND 4 ORDER BY id',
    'SELECT id FROM t WHERE NOT (a > 0) ORDER BY id',
    'SELECT MAX(d), MIN(d), MAX(c), MIN(b), AVG(e), STDDEV(a), VARIANCE(a) FROM t',
    'SELECT BIT_AND(a), BIT_OR(a), BIT_XOR(a) FROM t',
    'SELECT id, a <=> NULL, a IS TRUE, a IS NOT FALSE, b IS UNKNOWN FROM t ORDER BY id',
    "SELECT CHAR_LENGTH(NULL), CONCAT(NULL), UPPER(NULL), ABS(NULL), DATE_FORMAT(NULL, '%Y'), LENGTH('')",
    "SELECT LPAD('abc', 2, 'x'), RPAD('', 3, ''), REPEAT('x', 0), SUBSTRING('abc', 0), SUBSTRING('abc', 2), SUBSTR('abc' FROM 2 FOR 1)",
    "SELECT LOCATE('b', 'abcb', 3), POSITION('c' IN 'abc'), INSTR('abc', 'z'), REPLACE(NULL, 'a', 'b'), INSERT('abc', 2, 9, 'Z')",
    "SELECT MAKEDATE(2024, 60), MAKETIME(10, 5, 3), TIMEDIFF('10:00:00', '09:30:00'), ADDTIME('10:00:00', '00:30:00'), TIME('2024-01-05 10:11:12')",
    "SELECT DATE('2024-01-05 10:11:12'), TIMESTAMP('2024-01-05'), TO_DAYS('2024-01-05'), FROM_DAYS(739255), UTC_DATE() IS NOT NULL",
    "SELECT EXTRACT(YEAR FROM '2024-01-05'), EXTRACT(MONTH FROM d), EXTRACT(DAY_MINUTE FROM '2024-01-05 10:11:12') FROM t WHERE id = 1",
    "SELECT CONVERT_TZ('2024-01-05 10:00:00', '+00:00', '+02:00'), PERIOD_ADD(202401, 2), PERIOD_DIFF(202403, 202401)",
    "SELECT ELT(0, 'a'), FIELD(NULL, 'a'), FIND_IN_SET('c', 'a,b'), MAKE_SET(5, 'a', 'b', 'c'), EXPORT_SET(5, 'Y', 'N', ',', 4)",
    'SELECT LOG(8), LOG(2, 8), LOG2(8), LOG10(100), LN(1), EXP(0), RADIANS(180), DEGREES(PI()), ROUND(SIN(0), 2)',
    'SELECT TRUNCATE(-2.789, 1), ROUND(-2.789, 1), ROUND(1234.5678, -2), FLOOR(2.5), CEIL(-2.5), 10 % 3, -10 % 3',
    "SELECT 1 + '1', '1' + '1', 1 + NULL, 'a' = 'a ', 'a' LIKE 'a ', 2 * '2.5'",
    'SELECT 5 / 2, 5 DIV 2, -5 DIV 2, 5.0 / 2, 1 / 7, 100 / 3.0',
    "SELECT UUID() IS NOT NULL, LENGTH(UUID()), CONNECTION_ID() > 0, DATABASE(), VERSION() LIKE '10.11%'",
    "SELECT LOCATE('b', 'abcb', 3)",
    "SELECT POSITION('c' IN 'abc')",
    "SELECT INSERT('abc', 2, 9, 'Z')",
    "SELECT INSTR('abc', 'z'), REPLACE(NULL, 'a', 'b')",
    'SELECT PI(), STDDEV(a), STD(c), VAR_SAMP(e) FROM t',
    'SELECT e, ROUND(e, 2) FROM t ORDER BY id',
    "SELECT DATEDIFF(d, '2024-01-01'), DAYOFYEAR(d), DATE_FORMAT(d, '%W %D') FROM t ORDER BY id",
    'SELECT id, LAG(a) OVER (ORDER BY id), LEAD(a) OVER (ORDER BY id) FROM t ORDER BY id',
    'SELECT JSON_EXTRACT(\'{"a": {"b": [1, 2]}}\', \'$.a.b[1]\'), JSON_LENGTH(\'{"a": 1}\'), JSON_TYPE(\'1.5\'), JSON_TYPE(\'"x"\')',
    "SELECT SUBSTRING('abc', 2, -1), SUBSTRING('abc', -5), MID('abcdef', 2, 3), SUBSTRING('abc' FROM -2)",
    'SELECT a, a MOD 4, a % -4 FROM t ORDER BY id',
    "SELECT QUARTER('2024-05-01'), QUARTER(d), QUARTER(NULL), QUARTER('2024-12-31 10:00:00') FROM t ORDER BY id",
    'SELECT d + INTERVAL 1 DAY, d - INTERVAL 1 MONTH, d + INTERVAL 1 HOUR, d + INTERVAL 1 MICROSECOND FROM t ORDER BY id',
    "SELECT DATE_ADD(d, INTERVAL 1 DAY), DATE_SUB(d, INTERVAL 2 WEEK), ADDDATE(d, 3), SUBDATE(d, INTERVAL 90 MINUTE) FROM t ORDER BY id",
    "SELECT CAST(d AS DATETIME) + INTERVAL 1 SECOND, CAST('2024-01-05' AS DATE) + INTERVAL 1 DAY FROM t ORDER BY id",
    "SELECT STR_TO_DATE('05/01/2024', '%d/%m/%Y'), STR_TO_DATE('10:11', '%H:%i'), STR_TO_DATE('05/01/2024 10:11', '%d/%m/%Y %H:%i')",
    "SELECT STR_TO_DATE('05/01/2024 10:11:12.5', '%d/%m/%Y %H:%i:%s.%f'), STR_TO_DATE('x', '%Y')",
    'SELECT MAX(d + INTERVAL 1 DAY), MIN(d - INTERVAL 1 DAY) FROM t',
    'SELECT a, COUNT(*) c FROM t GROUP BY a HAVING c > 1',
    'SELECT a, COUNT(*) AS c, SUM(c) AS s FROM t GROUP BY a HAVING c > 1 AND s > 0 ORDER BY a',
    'SELECT b, MAX(c) AS c FROM t GROUP BY b HAVING c > (SELECT MIN(c) FROM t) ORDER BY b',
    'SELECT a, SUM(c) AS a FROM t GROUP BY a HAVING a > 1 ORDER BY a',
    'SELECT a, ROUND(AVG(c), 1) AS c FROM t GROUP BY a HAVING c >= 1.5 ORDER BY a',
    "SELECT GREATEST(1, 2.5, '3'), LEAST('a', 'B'), GREATEST(a, c), GREATEST('b', 'A', 'c'), LEAST('é', 'E', 'f') FROM t ORDER BY id",
    "SELECT GREATEST(1, 2), LEAST(1, NULL), GREATEST(1.5, 2), LEAST(e, a), GREATEST(d, '2024-01-01') FROM t ORDER BY id",
    "SELECT CAST(e AS CHAR), CONCAT(e), CONCAT(e * 1e16), CAST(e AS CHAR(2)), CONCAT(e, 'x'), LENGTH(e) FROM t ORDER BY id",
    'SELECT CONCAT(1e15), CONCAT(1e14), CONCAT(1.5e-7), CONCAT(1e20), CONCAT(-1e0), CAST(2.5e0 AS CHAR), CONCAT(1e-16)',
    'SELECT GROUP_CONCAT(e ORDER BY id), CONCAT(SUM(e)), CONCAT(AVG(e)) FROM t',
    "SELECT BIT_LENGTH(b), BIT_LENGTH('é'), BIT_LENGTH(NULL) FROM t ORDER BY id",
    "SELECT WEEKOFYEAR('2024-01-05'), WEEKOFYEAR(d), WEEKOFYEAR(NULL) FROM t ORDER BY id",
    "SELECT INET_ATON('10.0.0.1'), INET_ATON('127.1'), INET_ATON('x'), INET_ATON('256.1.1.1'), INET_NTOA(167772161),"
    " INET_NTOA(-1), INET_NTOA(NULL)",
    "SELECT TIME_FORMAT('10:11:12', '%H.%i'), TIME_FORMAT('100:00:00', '%H %k %h %I %l %p'),"
    " TIME_FORMAT('13:05:09.5', '%r %T %f %s %S %%'), TIME_FORMAT(NULL, '%H')",
    'SELECT JSON_MERGE_PATCH(\'{"a":1}\', \'{"b":2}\'), JSON_MERGE_PATCH(\'{"a":1,"b":2}\', \'{"a":null}\'),'
    ' JSON_MERGE_PATCH(\'[1]\', \'{"a":1}\'), JSON_MERGE_PATCH(\'{"a":{"x":1}}\', \'{"a":{"y":2}}\', \'{"c":3}\'),'
    " JSON_MERGE_PATCH(NULL, '{}')",
    "SELECT JSON_OBJECT('a', a, 'c', c, 'd', d, 'e', e), JSON_ARRAY(c, a, b, e) FROM t ORDER BY id",
    "SELECT JSON_ARRAYAGG(c), JSON_ARRAYAGG(JSON_OBJECT('a', a, 'c', c)), JSON_OBJECTAGG(b, c), JSON_ARRAYAGG(d),"
    " JSON_ARRAYAGG(e), JSON_ARRAYAGG(a) FROM t",
    'SELECT b, JSON_ARRAYAGG(id), JSON_OBJECTAGG(id, e) FROM t GROUP BY b ORDER BY b',
    'SELECT JSON_ARRAYAGG(a) FROM t WHERE id > 100',
    "SELECT JSON_OBJECT('x', JSON_ARRAY(c, 1), 'y', JSON_OBJECT('z', c)), JSON_SET('{\"a\":1}', '$.b', c),"
    " JSON_INSERT('{\"a\": 1}', '$.c', e) FROM t ORDER BY id",
    "SELECT JSON_ARRAYAGG(a * 2), JSON_ARRAYAGG(CONCAT(b, '\"')), JSON_ARRAYAGG(e * 2) FROM t",
    "SELECT JSON_OBJECT('k', 'a,b:c', 'q', 'say \"hi\"')",
    "SELECT JSON_OBJECT('s', SUM(c), 'n', COUNT(*), 'avg', AVG(c), 'mx', MAX(e)) FROM t",
    "SELECT JSON_OBJECT('d', c * 2, 'a', a, 'e', e / 2, 'x', 'y', 'r', ROUND(c, 1)) FROM t ORDER BY id",
    "SELECT b, JSON_ARRAYAGG(c * 2), JSON_OBJECT('total', SUM(c)) FROM t GROUP BY b ORDER BY b",
    'SELECT b, COUNT(*) FROM t WHERE c > 1.5 GROUP BY b WITH ROLLUP',
    "SELECT 'q', b, COUNT(*) FROM t WHERE b = _binary'x' GROUP BY b WITH ROLLUP",
    "CREATE VIEW vd AS SELECT id FROM t WHERE c > 1.5 OR b = _binary'y'",
    "SELECT 'zz', id FROM vd ORDER BY id",
    'SELECT b, COUNT(*), SUM(c) FROM t GROUP BY b WITH ROLLUP',
    'SELECT b, COUNT(*), SUM(c) FROM t GROUP BY b WITH ROLLUP ORDER BY b',
    "SELECT a, b, COUNT(*) AS n, CONCAT(b, '!') FROM t GROUP BY a, b WITH ROLLUP",
    'SELECT b, COUNT(*) FROM t GROUP BY b WITH ROLLUP HAVING COUNT(*) > 1',
    'SELECT b, COUNT(*) FROM t WHERE 0 GROUP BY b WITH ROLLUP',
    'SELECT b AS bb, COUNT(*) FROM t GROUP BY bb WITH ROLLUP LIMIT 2',
    'SELECT b, COUNT(*) FROM t GROUP BY 1 WITH ROLLUP',
    'SELECT UPPER(b), COUNT(*) FROM t GROUP BY b WITH ROLLUP',
    'SELECT YEAR(d) AS y, MONTH(d) AS m, SUM(c) total, MAX(e) FROM t WHERE id > 0 GROUP BY YEAR(d), MONTH(d) WITH ROLLUP',
    'SELECT b, GROUP_CONCAT(id ORDER BY id), AVG(a) FROM t GROUP BY b WITH ROLLUP',
    'SELECT id FROM t ORDER BY id FOR UPDATE SKIP LOCKED',
    'SELECT id FROM t ORDER BY id LIMIT 1 FOR UPDATE NOWAIT',
    'SELECT id FROM t ORDER BY id FOR UPDATE WAIT 1',
    'SELECT id FROM t WHERE id = 1 LOCK IN SHARE MODE NOWAIT',
    # SET timestamp fixes NOW() and friends (what replaying mariadb-binlog's output relies on)
    'SET timestamp = 1700000000',
    'SELECT NOW(), @@timestamp, UNIX_TIMESTAMP(), CURDATE(), CURTIME(), UTC_TIMESTAMP()',
    'CREATE TABLE ts_made SELECT NOW() AS n',
    'SELECT * FROM ts_made',
    'SET timestamp = DEFAULT',
    "SELECT NOW() > '2025-01-01'",
    # a scalar subquery of more than one row is 1242 (it gave its first row)
    'SELECT (SELECT id FROM t WHERE id > 1)',
    'SELECT id FROM t WHERE id = (SELECT id FROM t WHERE a = 5)',
    "SELECT id, (SELECT b FROM t t2 WHERE t2.b = t.b) FROM t ORDER BY id",
    "SELECT id, (SELECT b FROM t t2 WHERE t2.a = t.a AND t2.id <> t.id) FROM t ORDER BY id",
    'SELECT (SELECT MAX(id) FROM t), (SELECT a FROM t GROUP BY a HAVING a > 10), (SELECT 1 UNION SELECT 1),'
    ' (SELECT id FROM t WHERE id > 3), (SELECT id FROM t WHERE id > 9), (SELECT id FROM t ORDER BY id LIMIT 1)',
    'SELECT (SELECT a FROM t GROUP BY a)',
    'SELECT (SELECT 1 UNION SELECT 2)',
    'SELECT d.id FROM t, (SELECT id FROM t WHERE id < 3) AS d WHERE t.id = 1 ORDER BY d.id',
    "UPDATE t SET b = (SELECT b FROM t t2 WHERE t2.a = 5) WHERE id = 2",
    "UPDATE t SET b = (SELECT b FROM t t2 WHERE t2.id = 3) WHERE id = 2",
    'SELECT id, b FROM t ORDER BY id',
    # a number column against a string that is no number: the string's leading number, or 0 (it
    # compared as a text, above every number); GROUP_CONCAT(DISTINCT) by the collation
    "CREATE TABLE g (id INT PRIMARY KEY, v VARCHAR(10), n INT, f DOUBLE) DEFAULT CHARSET=utf8mb4",
    "INSERT INTO g VALUES (1, 'a', 1, 0.5), (2, 'A', 2, 1.5), (3, 'a ', 3, NULL), (4, 'b', NULL, 0), (5, 'B', 5, -1)",
    "SELECT id FROM g WHERE n = '' OR f = '' ORDER BY id",
    "SELECT id, n > '2abc', n BETWEEN 2 AND 'x', f < '1.5x', n = '2' FROM g ORDER BY id",
    "SELECT id FROM g WHERE id IN ('1', '3x') ORDER BY id",
    "SELECT id FROM g WHERE n <> 'abc' AND n < ' 3' ORDER BY id",
    "SELECT GROUP_CONCAT(DISTINCT v), GROUP_CONCAT(DISTINCT v SEPARATOR '|'), GROUP_CONCAT(DISTINCT v ORDER BY id DESC),"
    " GROUP_CONCAT(DISTINCT v ORDER BY v), GROUP_CONCAT(v ORDER BY v, id) FROM g",
    "SELECT n, GROUP_CONCAT(DISTINCT v ORDER BY v) FROM g GROUP BY n ORDER BY n",
    'SELECT (SELECT SUM(n) OVER () FROM g)',  # a window's rows: more than one
    'SELECT INTERVAL(5, 1, 3, 7), INTERVAL(0, 1, 3), INTERVAL(NULL, 1), INTERVAL(7, 1, 3, 7), INTERVAL(2.5, 1, 2, 3)',
    'SELECT id, INTERVAL(n, 2, 4) FROM g ORDER BY id',
    # BINARY or COLLATE makes its own comparison binary, not the statement's others
    "SELECT 'a' = 'A', BINARY 'a' = 'a', BINARY 'a' = 'A', 'a' = BINARY 'A'",
    "SELECT 'a' = 'A' COLLATE utf8mb4_bin, 'b' = 'B', 'a' COLLATE utf8mb4_bin = 'A'",
    "SELECT CONCAT(BINARY 'a', 'b') = 'AB', 'x' = 'X', 'a' = 'A' AND BINARY 'c' = 'C'",
    "SELECT ('a' = 'A') + (BINARY 'b' = 'B'), CASE WHEN 'a' = 'A' THEN 1 ELSE 0 END, 'a' < 'B', BINARY 'a' < 'B'",
    "SELECT 'a' = 'A', CAST('a' AS BINARY) = 'A', 'a' = CAST('A' AS BINARY), 'abc' = 'ABC '",
    "SELECT id, v = 'A', UPPER(v) = 'A', UPPER(v) = BINARY 'A' FROM g ORDER BY id",
    # BINARY before a name, a call or a parenthesized expression that is compared
    "SELECT id FROM g WHERE BINARY v = 'a' ORDER BY id",
    "SELECT id, BINARY v = 'A', BINARY UPPER(v) = 'A', BINARY v < 'b', 'a' = BINARY v, BINARY (v) <> 'a' FROM g ORDER BY id",
    "SELECT id FROM g WHERE BINARY v IN ('a', 'B') OR BINARY g.v NOT BETWEEN 'A' AND 'a' ORDER BY id",
    "SELECT id, BINARY v NOT IN ('A'), BINARY v BETWEEN 'a' AND 'b', BINARY n = 2 FROM g ORDER BY id",
    "SELECT id, BINARY v LIKE 'a%', BINARY v NOT LIKE 'A_', BINARY UPPER(v) LIKE 'A%' FROM g ORDER BY id",
    "SELECT id FROM g WHERE BINARY v LIKE 'B' ORDER BY id",
    "SELECT 'a' IN ('A'), 'a' IN ('A', 'b'), 'a' NOT IN ('A'), 'x' IN ('A'), 'a ' IN ('A'), '5' IN (5)",
    "SELECT 'a' IN (BINARY 'A'), BINARY 'a' IN ('A'), 'a' IN ('A' COLLATE utf8mb4_bin), 'a' IN ('A') AND BINARY 'b' = 'B'",
    "UPDATE g SET n = n + 100 WHERE BINARY v = 'B'",
    "SELECT id, n FROM g ORDER BY id",
    # typed literals DATE 'x', TIME 'x', TIMESTAMP 'x': the value MariaDB reads, 1525 for a text
    # that is none (they were 1064)
    "SELECT DATE '2020-01-01', TIME '10:11:12', TIMESTAMP '2020-01-01 10:11:12', DATE'2020-1-1', TIME '1 10',"
    " TIMESTAMP '20200101101112', date \"2020/01/01\"",
    "SELECT TIME '-10:00:00', TIME '838:59:59', TIME '10:11:12.5', TIME '101112', TIMESTAMP '2020-01-01 10:11:12.1234567',"
    " TIMESTAMP '2020-01-01T10:11', DATE '0000-00-00', DATE ' 70-01-01'",
    "SELECT DATE '2020-13-01'",
    "SELECT TIME '10:60:00'",
    "SELECT TIME '839:00:00'",
    "SELECT TIMESTAMP '2020-01-01'",
    "SELECT DATE '2020-01-01 10:11:12'",
    "SELECT TIME '2020-01-01 10:11:12'",
    "SELECT DATE '2020-02-30' FROM t WHERE 0",
    "SELECT DATE 20200101",
    "SELECT id FROM t WHERE d = DATE '2024-01-05' OR d BETWEEN DATE '2023-12-01' AND TIMESTAMP '2023-12-31 00:00:00'"
    " ORDER BY id",
    "SELECT id FROM t WHERE d > DATE '2024-1-5' OR d IN (DATE '2023-12-31') ORDER BY id",
    "SELECT DATE '2020-01-31' + INTERVAL 1 MONTH, DATEDIFF(DATE '2024-01-10', d), DATE '2020-01-01' = '2020-1-1',"
    " TIME '10:11:12' + 0, TIMESTAMP '2020-01-01 10:11:12' < DATE '2020-01-02', DAYNAME(DATE '2024-01-05') FROM t"
    " WHERE id = 1",
    "CREATE TABLE dt (id INT PRIMARY KEY, d DATE, f DATETIME(2), g TIME(1), n BIGINT, v VARCHAR(30))",
    "INSERT INTO dt VALUES (1, DATE '2024-03-01', TIMESTAMP '2024-03-01 10:11:12.345', TIME '-1:02:03.45',"
    " TIMESTAMP '2024-03-01 10:11:12', TIME '10:11:12.5')",
    "INSERT INTO dt VALUES (2, DATE '2024-02-30', NULL, NULL, NULL, NULL)",
    "INSERT IGNORE INTO dt (id, d) VALUES (2, DATE '2024-02-30')",
    "INSERT INTO dt SET id = 3, d = DATE '2024-3-2', f = TIMESTAMP '2024-03-02 00:00:00', g = TIME '1 10',"
    " n = DATE '2024-03-02'",
    "UPDATE dt SET g = TIME '12:00:00', v = DATE '2024-3-2' WHERE f = DATE '2024-03-02'",
    "SELECT id, d, f, g, n, v FROM dt WHERE f > TIMESTAMP '2024-03-01 10:11:12.3' ORDER BY id",
    # CHARSET(x) / COLLATION(x) (they were 1305): a string literal the connection's, a number, a
    # time, NULL or a binary string 'binary', a character column its collation
    "SELECT CHARSET('a'), COLLATION('a'), CHARSET(1), COLLATION(1.5), CHARSET(NULL), COLLATION(TRUE),"
    " CHARSET(_utf8mb4'x'), COLLATION(_utf8mb4'x'), CHARSET(1e0), charset(-1)",
    "SELECT CHARSET(_binary'a'), COLLATION(BINARY 'a'), CHARSET(x'61'), COLLATION(CAST('a' AS BINARY)), CHARSET(NOW()),"
    " CHARSET(a + c), COLLATION(d), CHARSET(DATE '2024-01-05') FROM t WHERE id = 1",
    "SELECT id, CHARSET(b), COLLATION(b), COLLATION(t.b), CHARSET(a), COLLATION(c), CHARSET(e),"
    " COLLATION(b COLLATE utf8mb4_bin), CHARSET('x' COLLATE utf8mb4_unicode_ci), COLLATION((SELECT 1)) FROM t ORDER BY id",
    "SELECT id FROM t WHERE COLLATION(b) = 'utf8mb4_general_ci' AND CHARSET(id) = 'binary' ORDER BY id",
    "CREATE TABLE cs (id INT PRIMARY KEY, m VARCHAR(5) COLLATE utf8mb4_bin, n JSON, h VARBINARY(4), x TEXT,"
    " en ENUM('a'), bl BLOB, y VARCHAR(3) BINARY) DEFAULT CHARSET=utf8mb4",
    "INSERT INTO cs VALUES (1, 'a', '[]', 'h', 'x', 'a', 'b', 'y')",
    "SELECT CHARSET(m), COLLATION(m), CHARSET(n), COLLATION(n), COLLATION(h), COLLATION(x), CHARSET(en), COLLATION(en),"
    " CHARSET(bl), COLLATION(y) FROM cs",
    "SET NAMES utf8mb3",
    "SELECT CHARSET('a'), COLLATION('a'), CHARSET(b) FROM t WHERE id = 1",
    "SET NAMES latin1",
    "SELECT CHARSET('a'), COLLATION('a'), CHARSET(1)",
    "SET NAMES utf8mb4",
    # arithmetic on literals only (an exact DECIMAL) compared by IN and BETWEEN as by = (they
    # compared its text with a number: 0)
    "SELECT 0.1 + 0.2 IN (0.3), 0.1 + 0.2 NOT IN (0.3), 0.3 IN (0.1 + 0.2, 5), 1.5 * 2 IN (3), 7 / 2 IN (3.5),"
    " 1 + 1 IN (2), 0.1 + 0.2 IN ('0.3'), 0.1 + 0.2 BETWEEN 0.3 AND 0.3, 2 BETWEEN 0.5 * 2 AND 1.5 + 1",
    "SELECT 0.1 + 0.2 IN (NULL, 0.3), 0.1 + 0.2 NOT IN (NULL, 0.3), 0.1 + 0.2 IN (NULL, 0.4), 0.1 + 0.2 <=> NULL,"
    " 0.1 + 0.2 BETWEEN NULL AND 1, 0.1 + 0.2 = 0.3",
    "SELECT id FROM t WHERE 1.5 * 2 IN (3, 4) AND 0.1 + 0.2 BETWEEN 0.3 AND 1 ORDER BY id",
    # a binary literal as an operand of LIKE matches byte for byte (it matched as a string under
    # utf8mb4_general_ci: BINARY 'A' LIKE 'a' was 1)
    "SELECT BINARY 'ä' LIKE 'a', BINARY 'A' LIKE 'a', _binary 'A' LIKE 'a', 'A' LIKE BINARY 'a', BINARY 'a' LIKE 'a',"
    " BINARY 'ab' LIKE 'a%', BINARY 'AB' LIKE 'a%', 'a%' LIKE BINARY 'a\\\\%', 'ab' LIKE BINARY 'a\\\\%',"
    " BINARY 'A' NOT LIKE 'a', 'x|%' LIKE _binary 'x||%' ESCAPE '|'",
    "SELECT 'A' NOT LIKE _binary 'a', 'A' NOT LIKE 'a', _binary 'a' NOT LIKE _binary 'A', 'b' LIKE _binary 'B'",
    # (against a column, a _binary literal matches by the column's collation, BINARY x binary)
    "SELECT id FROM g WHERE v LIKE BINARY 'a' OR v LIKE _binary 'B%' OR v NOT LIKE _binary '%' ORDER BY id",
    # BINARY 'x' compared with a column compares binary (it took the column's collation: v =
    # BINARY 'A' held for 'a'); a LIKE pattern said COLLATE x_bin matches by code points
    "SELECT id, v = BINARY 'A', BINARY 'A' = v, v = _binary 'A', v <> BINARY 'a', v >= BINARY 'a' FROM g ORDER BY id",
    "SELECT id FROM g WHERE v = BINARY 'A' OR BINARY 'b' < v ORDER BY id",
    "SELECT id, v LIKE 'A' COLLATE utf8mb4_bin, v LIKE 'A' COLLATE utf8mb4_general_ci, v NOT LIKE 'a%' COLLATE utf8mb4_bin"
    " FROM g ORDER BY id",
    "SELECT id FROM g WHERE v LIKE 'a%' COLLATE utf8mb4_bin ORDER BY id",
    # an ENUM column IN a list of strings and numbers: each item by its own type (it compared
    # the numbers as texts)
    "CREATE TABLE en (id INT PRIMARY KEY, c ENUM('a','b','c'))",
    "INSERT INTO en VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, NULL)",
    "SELECT id, c IN ('a', 2), c IN ('z', 3), c NOT IN (1, 'c'), c IN (NULL, 'x', 9), c IN ('B', 1) FROM en ORDER BY id",
    "SELECT id FROM en WHERE c IN ('a', 2) OR c NOT IN ('b', 1, 'a') ORDER BY id",
    # JSON_COMPACT (it was 1305): numbers and strings as written, NULL for text that is not JSON
    "SELECT JSON_COMPACT('{\"a\": 1, \"b\": [1, 2.50, \"x, y: z\"], \"c\": {\"d\" : null}}'),"
    " JSON_COMPACT('[ 1 , 2 ]'), JSON_COMPACT(NULL), JSON_COMPACT('not json'), JSON_COMPACT('1e2'),"
    " JSON_COMPACT('  [true,false]  '), JSON_COMPACT(JSON_OBJECT('a', 1, 'b', 'x')), JSON_COMPACT(1)",
    # BINARY x outside a comparison: x's bytes, a binary string, ordered, grouped and
    # concatenated byte for byte (it was 1054 "Unknown column 'BINARY'")
    "SELECT BINARY b, BINARY a, BINARY -a, BINARY NULL, BINARY 1.5, BINARY BINARY b FROM t ORDER BY id",
    "SELECT id, b FROM t ORDER BY BINARY b DESC, id",
    "SELECT BINARY b AS q, COUNT(*) FROM t GROUP BY BINARY b ORDER BY q",
    "SELECT CONCAT(BINARY b, 'x'), LENGTH(BINARY b), BINARY b LIKE 'x', BINARY b + 1 FROM t ORDER BY id",
    "SELECT id FROM t WHERE BINARY BINARY b = 'x' ORDER BY id",
    # adjacent strings are one literal (they were 1064), named by its value, with blanks or
    # comments between
    "SELECT 'a' 'b', 'a' \"b\" 'c', _utf8mb4'a' 'b', N'a' 'b', CONCAT('a' 'b', 'c'), 'a' /* c */ 'b'",
    "SELECT id FROM t WHERE b = 'x' '' ORDER BY id",
    # @x := value in a SELECT (it was 1064): evaluated row by row, in the select list and in
    # WHERE; a read of a variable the statement assigns typed by its value when it begins (one
    # without a value: a string after its assignment, NULL before); the session keeps the last
    "SELECT @x := 5, @x, @y := 'abc', @y, @z := 1.5, @z, @w := NULL, @w",
    "SELECT @x, @y, @z, @w",
    "SELECT @r := 0",
    "SELECT id, @r := @r + 1 FROM t ORDER BY id",
    "SELECT @r",
    "SELECT @s := 0",
    "SELECT id, a, @s := @s + IFNULL(a, 0) AS tot FROM t ORDER BY id DESC",
    "SELECT @s",
    "SELECT @r := 0",
    "SELECT id FROM t WHERE (@r := @r + 1) <= 2 ORDER BY id",
    "SELECT @r, @r := @r + 1, @r := @r + 1, @r",
    "SELECT @nv, @nv := 1, @nv FROM t ORDER BY id",
    "SELECT @nv",
]


def test_functions_answer_as_mariadb(tmp_path):
    with mariadb_and_ours(tmp_path) as (reference, master):
        theirs, ours = both_answer(reference, master, SETUP, QUERIES)
        assert ("SELECT '3x' * 2, '3x' + 0, '1.5abc' + 1, 'x' * 1", ("rows", ((6.0, 3.0, 2.5, 0.0),))) in theirs
        assert ours == theirs
