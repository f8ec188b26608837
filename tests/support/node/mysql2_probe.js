// One run of Node's mysql2 (a client nobody on the project wrote) against a server: the steps
// below, each answer as mysql2 gives it (JS values and types, column types, errors), printed as
// JSON on stdout. tests/integration/test_node_mysql2_mariadb.py runs it on MariaDB and on ours
// and compares the two. Usage: node mysql2_probe.js PORT
const mysql = require('mysql2/promise');

const port = parseInt(process.argv[2], 10);

function shape(value) {
  // a JS value with its type, so '1' and 1 and a Buffer differ
  if (value === null) return null;
  if (Buffer.isBuffer(value)) return { buffer: value.toString('hex') };
  if (value instanceof Date) return { date: value.toISOString() };
  if (typeof value === 'bigint') return { bigint: value.toString() };
  if (Array.isArray(value)) return value.map(shape);
  if (typeof value === 'object') return { object: JSON.stringify(value) };
  return { [typeof value]: value };
}

async function main() {
  const out = [];
  const conn = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root', password: '' });
  const step = async (name, fn) => {
    try {
      out.push([name, await fn()]);
    } catch (err) {
      out.push([name, { error: err.errno, fatal: Boolean(err.fatal) }]);
    }
  };
  const rows = async (sql, params) => {
    const [result, fields] = params === undefined ? await conn.query(sql) : await conn.execute(sql, params);
    if (!Array.isArray(result)) return { affected: result.affectedRows, insertId: result.insertId };
    return { types: (fields || []).map((f) => [f.name, f.columnType]),
             rows: result.map((r) => Object.keys(r).map((k) => shape(r[k]))) };
  };
  const setup = [
    'CREATE DATABASE n1',
    'CREATE TABLE n1.t (id INT PRIMARY KEY, j JSON, d DECIMAL(30,10), s VARCHAR(30), e ENUM(\'new\',\'open\',\'done\'))',
    'INSERT INTO n1.t VALUES (1, \'{"a": [1, 2]}\', -0.0000000001, \'x\', \'open\'), (2, \'"str"\', 0, NULL, \'done\'),'
      + ' (3, NULL, 12.5, \'z\', \'new\')',
    "CREATE USER 'nuser'@'%' IDENTIFIED BY 'pw'",
    "GRANT SELECT ON n1.* TO 'nuser'@'%'",
  ];
  for (const sql of setup) await conn.query(sql);
  for (const execute of [false, true]) {
    const how = execute ? 'execute' : 'query';
    const run = (sql) => (execute ? rows(sql, []) : rows(sql));
    await step(`${how}: JSON values`, () => run('SELECT id, j, JSON_OBJECT(\'k\', id) AS o, JSON_EXTRACT(j, \'$.a\') AS x FROM n1.t ORDER BY id'));
    await step(`${how}: DECIMAL text`, () => run('SELECT d, -d AS n, d * 2 AS m FROM n1.t ORDER BY id'));
    await step(`${how}: ENUM order`, () => run('SELECT id FROM n1.t ORDER BY e'));
    await step(`${how}: derived table`, () => run('SELECT t.id FROM (SELECT \'x\' AS id) t'));
  }
  await step('nestTables', async () => {
    const [result] = await conn.query({ sql: 'SELECT a.id, b.s FROM n1.t a JOIN n1.t b ON a.id = b.id ORDER BY a.id',
                                        nestTables: true });
    return result.map((r) => Object.keys(r).map((k) => [k, Object.keys(r[k])]));
  });
  await step('execute: a JS number into a VARCHAR', async () => {
    await conn.execute('INSERT INTO n1.t (id, s) VALUES (?, ?), (?, ?)', [10, 99, 11, 0.5]);
    return rows('SELECT s FROM n1.t WHERE id >= 10 ORDER BY id');
  });
  await step('SHOW TABLE STATUS types', async () => {
    const [, fields] = await conn.query("SHOW TABLE STATUS FROM n1 LIKE 't'");
    return fields.map((f) => [f.name, f.columnType]);
  });
  await step('READ ONLY transaction', async () => {
    await conn.query('START TRANSACTION READ ONLY');
    try {
      return await rows('INSERT INTO n1.t (id) VALUES (20)');
    } finally {
      await conn.query('ROLLBACK');
    }
  });
  await step('changeUser, wrong password', () => conn.changeUser({ user: 'nuser', password: 'bad' }).then(() => 'ok'));
  await step('after it', () => rows('SELECT DATABASE() AS d, SUBSTRING_INDEX(CURRENT_USER(), \'@\', 1) AS u'));
  await step('changeUser', () => conn.changeUser({ user: 'nuser', password: 'pw', database: 'n1' }).then(() => 'ok'));
  await step('as the new user', () => rows('SELECT DATABASE() AS d, SUBSTRING_INDEX(CURRENT_USER(), \'@\', 1) AS u, COUNT(*) AS c FROM t'));
  await step('its privileges', () => rows('INSERT INTO t (id) VALUES (30)'));
  await conn.end();
  process.stdout.write(JSON.stringify(out));
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack ? err.stack : err));
  process.exit(1);
});
