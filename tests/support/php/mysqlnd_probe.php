<?php
// One run of PHP's mysqlnd (an implementation of the protocol nobody on the project wrote), through
// mysqli and PDO_MySQL, against a server: each step's answer as PHP gives it (values with their
// PHP types, column metadata, counts, errors), one line per step on stdout.
// tests/integration/test_php_mysqlnd_mariadb.py runs it on MariaDB and on ours and compares.
// Usage: php mysqlnd_probe.php PORT
mysqli_report(MYSQLI_REPORT_OFF);
$port = (int)$argv[1];

function show($value) {
    // a PHP value with its type, so '1', 1, 1.0 and null differ
    if (is_array($value)) {
        return '[' . implode(', ', array_map(fn($k) => var_export($k, true) . ' => ' . show($value[$k]),
                                              array_keys($value))) . ']';
    }
    if (is_string($value)) return 'string(' . bin2hex($value) . ')';
    if (is_float($value)) return 'float(' . var_export($value, true) . ')';
    return gettype($value) . '(' . var_export($value, true) . ')';
}

function say($step, $value) {
    echo $step, ': ', show($value), "\n";
}

function fields($result) {
    $out = [];
    foreach ($result->fetch_fields() as $f) {
        $out[] = [$f->name, $f->orgname, $f->table, $f->orgtable, $f->db, $f->type, $f->length,
                  $f->max_length, $f->flags, $f->decimals, $f->charsetnr];
    }
    return $out;
}

function conn_state($step, $m) {
    say($step, ['errno' => $m->errno, 'sqlstate' => $m->sqlstate, 'error' => $m->error,
                'affected' => $m->affected_rows, 'insert_id' => $m->insert_id, 'info' => $m->info,
                'warnings' => $m->warning_count, 'field_count' => $m->field_count]);
}

$m = new mysqli('127.0.0.1', 'root', '', '', $port);
foreach (["DROP DATABASE IF EXISTS p1", "DROP USER IF EXISTS 'puser'@'%'", "CREATE DATABASE p1",
          "CREATE USER 'puser'@'%' IDENTIFIED BY 'pw'", "GRANT SELECT, INSERT ON p1.* TO 'puser'@'%'"] as $sql) {
    $m->query($sql) or die("setup: $sql: {$m->error}\n");
}
$m->select_db('p1');
say('charset', [$m->character_set_name(), $m->get_charset()->charset, $m->get_charset()->collation]);
say('ping', $m->ping());
say('escape', $m->real_escape_string("a'b\"c\\d\0e\n\x1a"));
$m->set_charset('latin1');
say('set_charset latin1', [$m->character_set_name(), $m->query('SELECT @@character_set_client, @@collation_connection')->fetch_row()]);
say('escape latin1', $m->real_escape_string("é'"));
$m->set_charset('utf8mb4');
say('set_charset utf8mb4', $m->query('SELECT @@character_set_results, @@collation_connection')->fetch_row());

$m->query("CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY,
    ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, su SMALLINT UNSIGNED, mi MEDIUMINT, mu MEDIUMINT UNSIGNED,
    i INT, iu INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED,
    de DECIMAL(20,6), fl FLOAT, db DOUBLE,
    da DATE, tm TIME, dt DATETIME(6), ts TIMESTAMP NULL, yr YEAR,
    ch CHAR(5), vc VARCHAR(20), tx TEXT, bl BLOB, bn BINARY(4), vb VARBINARY(8),
    en ENUM('x','y','z'), st SET('a','b','c'), js JSON, bt BIT(10))");
conn_state('create table', $m);
$ok = $m->query("INSERT INTO t VALUES (NULL, -128, 255, -32768, 65535, -8388608, 16777215, -2147483648, 4294967295,
    -9223372036854775808, 18446744073709551615, -12345678901234.123456, 1.5, -2.25e100,
    '2024-02-29', '-838:59:59', '2024-01-02 03:04:05.678901', '2024-05-06 07:08:09', 2155,
    'ab', 'héllo', 'text', x'00ff', x'01', x'0203', 'y', 'a,c', '{\"k\": [1, 2.5, null]}', b'1010101010')");
conn_state('insert full row', $m);
$m->query("INSERT INTO t (id) VALUES (NULL), (NULL)");
conn_state('insert nulls', $m);
$m->query("INSERT INTO t (id, ti) VALUES (10, 300)");
conn_state('insert out of range', $m);
$r = $m->query('SHOW WARNINGS');
say('its warnings', $r->fetch_all());
$m->query("UPDATE t SET vc = 'u' WHERE id > 1");
conn_state('update', $m);
$m->query("INSERT INTO t (id, vc) VALUES (20, 'a'), (21, 'b') ON DUPLICATE KEY UPDATE vc = 'c'");
conn_state('insert many', $m);
$m->query("INSERT INTO t (id, vc) VALUES (20, 'a') ON DUPLICATE KEY UPDATE vc = 'c'");
conn_state('on duplicate key', $m);
$m->query("REPLACE INTO t (id, vc) VALUES (21, 'r')");
conn_state('replace', $m);
$m->query("DELETE FROM t WHERE id >= 20");
conn_state('delete', $m);

$r = $m->query('SELECT * FROM t ORDER BY id');
say('text fields', fields($r));
say('text rows', $r->fetch_all(MYSQLI_ASSOC));
$m->options(MYSQLI_OPT_INT_AND_FLOAT_NATIVE, true);
$n = new mysqli();
$n->options(MYSQLI_OPT_INT_AND_FLOAT_NATIVE, true);
$n->real_connect('127.0.0.1', 'root', '', 'p1', $port);
say('text rows, native types', $n->query('SELECT * FROM t ORDER BY id')->fetch_all(MYSQLI_ASSOC));
$n->close();

$s = $m->prepare('SELECT * FROM t WHERE id >= ? ORDER BY id');
$low = 0;
$s->bind_param('i', $low);
$s->execute();
$meta = $s->result_metadata();
say('prepared fields', fields($meta));
$row = [];
$refs = [];
foreach ($meta->fetch_fields() as $f) {
    $row[$f->name] = null;
    $refs[] = &$row[$f->name];
}
$s->bind_result(...$refs);
$s->store_result();
say('prepared num_rows', $s->num_rows);
while ($s->fetch()) {
    say('bind_result row', array_map(fn($v) => $v, $row));
}
$s->close();

$s = $m->prepare('SELECT * FROM t WHERE id = ?');
$id = 1;
$s->bind_param('i', $id);
$s->execute();
say('prepared get_result', $s->get_result()->fetch_all(MYSQLI_ASSOC));
$s->close();

$s = $m->prepare('INSERT INTO t (ti, bu, de, db, dt, vc, bl, en, st, js, bt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
say('insert param_count', $s->param_count);
$vals = [7, '18446744073709551615', '3.141593', 0.1, '2001-02-03 04:05:06.5', 'pär', "\x00\x01", 'z', 'b', '[1]', 5];
$s->bind_param('isddssbsssi', ...$vals);
$s->send_long_data(6, "long\x00data");
$s->execute();
say('prepared insert', [$s->affected_rows, $s->insert_id, $s->errno, $m->warning_count]);
$s->close();
say('inserted row', $m->query('SELECT * FROM t ORDER BY id DESC LIMIT 1')->fetch_assoc());

$s = $m->prepare('INSERT INTO t (id) VALUES (?)');
$dup = 1;
$s->bind_param('i', $dup);
say('prepared duplicate', [$s->execute(), $s->errno, $s->sqlstate, $s->error]);
$s->close();
$s = $m->prepare('SELECT nope FROM t');
say('prepare error', [$s, $m->errno, $m->sqlstate, $m->error]);

$r = $m->query('SELECT no_such_col FROM t');
conn_state('query error', $m);
$m->query('SELECT * FROM no_such_table');
conn_state('no table', $m);
$m->query('SELEC 1');
conn_state('syntax error', $m);

$sql = "SELECT 1 AS a; SELECT 'x' AS b, NULL AS c; INSERT INTO t (id) VALUES (100); SELECT bad; SELECT 2";
say('multi_query', $m->multi_query($sql));
$i = 0;
do {
    if ($r = $m->store_result()) {
        say("multi result $i", [fields($r), $r->fetch_all()]);
        $r->free();
    } else {
        conn_state("multi status $i", $m);
    }
    $i++;
} while ($m->more_results() && $m->next_result());
conn_state('multi end', $m);
say('after multi', $m->query('SELECT COUNT(*) FROM t')->fetch_row());

$r = $m->query('SELECT id, vc FROM t ORDER BY id', MYSQLI_USE_RESULT);
$rows = [];
while ($row = $r->fetch_row()) $rows[] = $row;
say('use result', [$rows, $r->num_rows]);
$r->free();
$r = $m->query('SELECT id FROM t ORDER BY id', MYSQLI_STORE_RESULT);
say('store result', [$r->num_rows, $r->fetch_row()]);
$r->data_seek(2);
say('data_seek', $r->fetch_row());

$m->autocommit(false);
$m->begin_transaction();
$m->query("INSERT INTO t (id) VALUES (200)");
$m->rollback();
say('rolled back', $m->query('SELECT COUNT(*) FROM t WHERE id = 200')->fetch_row());
$m->begin_transaction(MYSQLI_TRANS_START_READ_ONLY);
$m->query("INSERT INTO t (id) VALUES (201)");
conn_state('read only transaction', $m);
$m->rollback();
$m->query("INSERT INTO t (id) VALUES (202)");
$m->commit();
$m->autocommit(true);
say('committed', $m->query('SELECT COUNT(*) FROM t WHERE id = 202')->fetch_row());

say('change_user bad', [$m->change_user('puser', 'bad', 'p1'), $m->errno, $m->sqlstate]);
say('change_user', [$m->change_user('puser', 'pw', 'p1'), $m->errno]);
say('as puser', $m->query('SELECT CURRENT_USER(), DATABASE(), @@autocommit')->fetch_row());
$m->query('DELETE FROM t');
conn_state('puser delete', $m);
say('change_user back', [$m->change_user('root', '', ''), $m->query('SELECT DATABASE()')->fetch_row()]);
$m->close();

// TLS, when the server offers it (the certificate is not verified: a test CA)
$t = mysqli_init();
$t->ssl_set(null, null, null, null, null);
$secured = @$t->real_connect('127.0.0.1', 'root', '', 'p1', $port, null,
                             MYSQLI_CLIENT_SSL | MYSQLI_CLIENT_SSL_DONT_VERIFY_SERVER_CERT);
say('tls', [$secured, $secured ? $t->query("SHOW SESSION STATUS LIKE 'Ssl_version'")->fetch_row() : $t->connect_errno,
            $secured ? $t->query("SELECT COUNT(*) FROM t")->fetch_row() : null]);
if ($secured) $t->close();

foreach ([true, false] as $emulate) {
    $tag = $emulate ? 'pdo emulated' : 'pdo server-side';
    $pdo = new PDO("mysql:host=127.0.0.1;port=$port;dbname=p1;charset=utf8mb4", 'root', '',
                   [PDO::ATTR_ERRMODE => PDO::ERRMODE_SILENT, PDO::ATTR_EMULATE_PREPARES => $emulate]);
    $st = $pdo->prepare('SELECT * FROM t WHERE id <= ? ORDER BY id');
    $st->execute([3]);
    $cols = [];
    for ($c = 0; $c < $st->columnCount(); $c++) {
        $meta = $st->getColumnMeta($c);
        unset($meta['table']);
        $cols[] = $meta;
    }
    say("$tag columns", $cols);
    say("$tag rows", $st->fetchAll(PDO::FETCH_ASSOC));
    $st = $pdo->prepare('SELECT ? AS a, ? AS b, ? AS c, ? AS d');
    $st->bindValue(1, 5, PDO::PARAM_INT);
    $st->bindValue(2, 'x', PDO::PARAM_STR);
    $st->bindValue(3, null, PDO::PARAM_NULL);
    $st->bindValue(4, true, PDO::PARAM_BOOL);
    $st->execute();
    say("$tag params", $st->fetchAll(PDO::FETCH_NUM));
    $st = $pdo->prepare('INSERT INTO t (vc) VALUES (?), (?)');
    $st->execute(['p', 'q']);
    say("$tag insert", [$st->rowCount(), $pdo->lastInsertId()]);
    $st = $pdo->prepare('INSERT INTO t (id) VALUES (?)');
    say("$tag duplicate", [$st->execute([1]), $st->errorCode(), $st->errorInfo()]);
    $st = $pdo->prepare('SELECT nope FROM t WHERE id = ?');
    say("$tag bad column", [$st ? $st->execute([1]) : false, $st ? $st->errorInfo() : $pdo->errorInfo()]);
    $pdo->beginTransaction();
    $pdo->exec('DELETE FROM t WHERE id = 202');
    $pdo->rollBack();
    say("$tag transaction", $pdo->query('SELECT COUNT(*) FROM t WHERE id = 202')->fetchAll(PDO::FETCH_NUM));
    say("$tag exec", $pdo->exec("UPDATE t SET vc = 'e' WHERE id <= 3"));
    $st = $pdo->query('SELECT 1 AS a; SELECT 2 AS b');
    $sets = [];
    if ($st) {
        do { $sets[] = $st->fetchAll(PDO::FETCH_NUM); } while ($st->nextRowset());
    }
    say("$tag rowsets", [$sets, $pdo->errorInfo()]);
    say("$tag attributes", [$pdo->getAttribute(PDO::ATTR_SERVER_VERSION) !== '', $pdo->quote("a'b")]);
}
