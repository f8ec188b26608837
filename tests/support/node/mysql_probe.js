// One run of Node's pure-JS mysql package (not mysql2: its own protocol code) against a server:
// the steps below on connections with its defaults and with its options (supportBigNumbers,
// bigNumberStrings, dateStrings, typeCast off, multipleStatements, a charset), each answer as
// mysql gives it (JS values and types, field packets, OK counts, errors), printed as JSON on
// stdout. tests/integration/test_node_mysql_mariadb.py runs it on MariaDB and on ours and
// compares the two. Usage: node mysql_probe.js PORT
const mysql = require('mysql');

const port = parseInt(process.argv[2], 10);

function shape(value) {
  // a JS value with its type, so '1' and 1 and a Buffer differ
  if (value === null) return null;
  if (Buffer.isBuffer(value)) return { buffer: value.toString('hex') };
  if (value instanceof Date) return { date: Number.isNaN(value.getTime()) ? 'invalid' : value.toISOString() };
  if (Array.isArray(value)) return value.map(shape);
  if (typeof value === 'object') return { object: JSON.stringify(value) };
  return { [typeof value]: value };
}

function described(result, fields) {
  if (!Array.isArray(result)) {
    return { affected: result.affectedRows, changed: result.changedRows, insertId: shape(result.insertId),
             warnings: result.warningCount, message: result.message,
             // (SERVER_QUERY_NO_INDEX_USED and _NO_GOOD_INDEX_USED left out: ours never sets them)
             status: result.serverStatus & ~48 };
  }
  if (fields && fields.length && Array.isArray(fields[0])) {  // multipleStatements: one list per statement
    return result.map((r, i) => described(r, fields[i]));
  }
  return { fields: (fields || []).map((f) => [f.name, f.orgName, f.table, f.orgTable, f.db, f.type, f.length,
                                                f.flags, f.decimals, f.charsetNr]),
           rows: result.map((r) => Object.keys(r).map((k) => [k, shape(r[k])])) };
}

function connect(options) {
  return mysql.createConnection({ host: '127.0.0.1', port, user: 'root', password: '', timezone: 'Z', ...options });
}

function query(conn, sql, values) {
  return new Promise((resolve) => {
    conn.query(sql, values, (err, result, fields) => {
      if (err) resolve({ error: err.errno, code: err.code, sqlState: err.sqlState, message: err.sqlMessage,
                         fatal: Boolean(err.fatal) });
      else resolve(described(result, fields));
    });
  });
}

function changeUser(conn, options) {
  return new Promise((resolve) => {
    conn.changeUser(options, (err) => resolve(err ? { error: err.errno, code: err.code, fatal: Boolean(err.fatal) } : 'ok'));
  });
}

function end(conn) {
  return new Promise((resolve) => conn.end(() => resolve()));
}

async function main() {
  const out = [];
  const root = connect({});
  for (const sql of [
    'DROP DATABASE IF EXISTS m1', "DROP USER IF EXISTS 'muser'@'%'", 'CREATE DATABASE m1',
    "CREATE USER 'muser'@'%' IDENTIFIED BY 'pw'", "GRANT SELECT ON m1.* TO 'muser'@'%'",
  ]) {
    const answer = await query(root, sql);
    if (answer.error) throw new Error(`setup: ${sql}: ${answer.message}`);
  }
  const step = async (conn, name, sql, values) => out.push([name, await query(conn, sql, values)]);
  // (the values only: a variable's column definition is not MariaDB's yet)
  out.push(['charset', (await query(root, 'SELECT @@character_set_client, @@collation_connection, @@character_set_results')).rows]);
  await step(root, 'create', `CREATE TABLE m1.t (id INT AUTO_INCREMENT PRIMARY KEY,
      ti TINYINT, tu TINYINT UNSIGNED, i INT, iu INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED,
      de DECIMAL(30,10), fl FLOAT, db DOUBLE, da DATE, tm TIME, dt DATETIME(6), ts TIMESTAMP NULL, yr YEAR,
      ch CHAR(5), vc VARCHAR(20), tx TEXT, bl BLOB, bn BINARY(3), en ENUM('x','y'), st SET('a','b'),
      js JSON, bt BIT(12))`);
  await step(root, 'insert', `INSERT INTO m1.t VALUES (NULL, -128, 255, -2147483648, 4294967295,
      -9223372036854775808, 18446744073709551615, -12345678901234567890.0123456789, 1.25, 0.1,
      '2024-02-29', '-12:34:56', '2024-01-02 03:04:05.678901', '2024-05-06 07:08:09', 1999, 'ab', 'héllo',
      'text', x'00ff', x'01', 'y', 'a,b', '{"k": [1, 2.5]}', b'101010101010'),
      (NULL, 1, 2, 3, 4, 9007199254740993, 9007199254740993, 0.5, NULL, NULL, '0000-00-00', '00:00:00',
      '0000-00-00 00:00:00', NULL, 2000, '', '', '', '', x'000000', 'x', '', 'null', b'0')`);
  await step(root, 'insert nulls', 'INSERT INTO m1.t (id) VALUES (NULL)');
  await step(root, 'values placeholder', 'INSERT INTO m1.t (vc, dt, bl) VALUES (?, ?, ?)',
             ['pär', new Date(Date.UTC(2020, 0, 2, 3, 4, 5, 678)), Buffer.from([1, 2])]);
  await step(root, 'SET placeholder', 'INSERT INTO m1.t SET ?', { vc: 'set', ti: 5 });
  await step(root, 'update', "UPDATE m1.t SET vc = 'u' WHERE id > 2");
  await step(root, 'update none changed', "UPDATE m1.t SET vc = 'u' WHERE id > 2");
  await step(root, 'upsert', "INSERT INTO m1.t (id, vc) VALUES (1, 'a') ON DUPLICATE KEY UPDATE vc = 'dup'");
  await step(root, 'out of range', 'INSERT INTO m1.t (id, ti) VALUES (50, 300)');
  await step(root, 'lax out of range', "SET SESSION sql_mode = ''");
  await step(root, 'truncated', 'INSERT INTO m1.t (id, ti) VALUES (51, 300)');
  await step(root, 'its warnings', 'SHOW WARNINGS');
  await step(root, 'rows, defaults', 'SELECT * FROM m1.t ORDER BY id');
  await step(root, 'expressions', "SELECT 2.5 * 2 AS b, 'x' AS c, NULL AS d, SUM(id) AS g, COUNT(*) AS h, 1e3 AS i FROM m1.t");
  await step(root, 'error', 'SELECT nope FROM m1.t');
  await step(root, 'no table', 'SELECT * FROM m1.nope');
  await step(root, 'duplicate', 'INSERT INTO m1.t (id) VALUES (1)');
  await step(root, 'syntax', 'SELEC 1');
  await step(root, 'two statements without multipleStatements', 'SELECT 1; SELECT 2');
  await step(root, 'transaction', 'START TRANSACTION');
  await step(root, 'in it', 'DELETE FROM m1.t');
  await step(root, 'rollback', 'ROLLBACK');
  await step(root, 'after rollback', 'SELECT COUNT(*) AS c FROM m1.t');
  out.push(['ping', await new Promise((resolve) => root.ping((err) => resolve(err ? err.errno : 'ok')))]);
  out.push(['changeUser, wrong password', await changeUser(root, { user: 'muser', password: 'bad' })]);
  const changing = connect({});
  out.push(['changeUser', await changeUser(changing, { user: 'muser', password: 'pw', database: 'm1' })]);
  await step(changing, 'as the new user', 'SELECT CURRENT_USER() AS u, DATABASE() AS d, COUNT(*) AS c FROM t');
  await step(changing, 'its privileges', 'DELETE FROM t');
  await end(changing);
  const other = connect({ user: 'muser', password: 'pw', database: 'm1' });
  await step(other, 'as the other user', 'SELECT CURRENT_USER() AS u, DATABASE() AS d, COUNT(*) AS c FROM t');
  out.push(['changeUser charset', await changeUser(other, { user: 'muser', password: 'pw', charset: 'LATIN1_SWEDISH_CI' })]);
  out.push(['its charset', (await query(other, 'SELECT @@collation_connection AS c')).rows]);
  await step(other, 'its text', "SELECT 'é' AS e, vc FROM t WHERE id = 1");
  await end(other);
  await end(root);

  for (const [name, options] of [
    ['bigNumbers', { supportBigNumbers: true }],
    ['bigNumberStrings', { supportBigNumbers: true, bigNumberStrings: true }],
    ['dateStrings', { dateStrings: true }],
    ['typeCast off', { typeCast: false }],
    ['typeCast function', { typeCast: (field, next) => (field.type === 'BIT' ? field.buffer() : next()) }],
    ['utf8mb4', { charset: 'UTF8MB4_UNICODE_CI' }],
    ['latin1', { charset: 'LATIN1_SWEDISH_CI' }],
  ]) {
    const conn = connect(options);
    await step(conn, `${name}: rows`, 'SELECT * FROM m1.t ORDER BY id');
    await step(conn, `${name}: charset`, "SELECT 'é' AS c, vc FROM m1.t WHERE id = 1");
    await end(conn);
  }
  const multi = connect({ multipleStatements: true });
  await step(multi, 'multipleStatements', "SELECT 1 AS a; SELECT 'x' AS b, NULL AS c; INSERT INTO m1.t (vc) VALUES ('m'); UPDATE m1.t SET vc = 'n' WHERE vc = 'm'");
  await step(multi, 'multipleStatements with an error', 'SELECT 1 AS a; SELECT nope; SELECT 3');
  await step(multi, 'after it', 'SELECT COUNT(*) AS c FROM m1.t');
  await end(multi);
  process.stdout.write(JSON.stringify(out));
}

main().catch((err) => {
  process.stderr.write(String(err.stack || err));
  process.exit(1);
});
