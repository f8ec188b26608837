# One run of Ruby's mysql2 gem (Rails' adapter; over libmariadb) against a server: Client#query
# with and without cast / symbolize_keys / as: :array, Mysql2::Statement (server-side prepares,
# binary protocol) over every column type, fields and field_types, affected_rows / last_id /
# warning_count / query_info, multi-statements with next_result / store_result, errors
# (error_number, sql_state, message), the connection's encoding, ping, escape and server_info:
# one line per step on stdout. tests/integration/test_ruby_mysql2_mariadb.py runs it on MariaDB
# and on ours and compares. Usage: ruby mysql2_probe.rb PORT
require 'mysql2'
require 'bigdecimal'
require 'date'

$stdout.sync = true
PORT = Integer(ARGV[0])

def show(value)
  case value
  when nil then 'nil'
  when Array then '[' + value.map { |v| show(v) }.join(', ') + ']'
  when Hash then '{' + value.map { |k, v| "#{show(k)} => #{show(v)}" }.join(', ') + '}'
  when String then "#{value.encoding}:#{value.dump}"
  when BigDecimal then "BigDecimal(#{value.to_s('F')})"
  when Time then "Time(#{value.strftime('%Y-%m-%d %H:%M:%S.%N %z')})"
  when Mysql2::Error then "Error(#{value.error_number}, #{value.sql_state.inspect}, #{value.message.dump})"
  else "#{value.class}(#{value.inspect})"
  end
end

def say(name, *values)
  puts "#{name}: #{values.map { |v| show(v) }.join(' | ')}"
end

# what a block answered, or the Mysql2::Error it raised
def step(name)
  say(name, yield)
rescue Mysql2::Error => e
  say(name, e)
end

def connect(**options)
  Mysql2::Client.new(host: '127.0.0.1', port: PORT, username: 'root', **options)
end

setup = connect(flags: Mysql2::Client::MULTI_STATEMENTS)
setup.query(<<~SQL)
  DROP DATABASE IF EXISTS rb; CREATE DATABASE rb;
  CREATE TABLE rb.t (id INT AUTO_INCREMENT PRIMARY KEY, ti TINYINT NOT NULL DEFAULT 0, tu TINYINT UNSIGNED,
   si SMALLINT, mi MEDIUMINT, i INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED, de DECIMAL(12,3), fl FLOAT,
   db DOUBLE, da DATE, tm TIME(3), dt DATETIME(6), ts TIMESTAMP NULL, yr YEAR, ch CHAR(4), vc VARCHAR(30),
   tx TEXT, bl BLOB, bn BINARY(2), vb VARBINARY(5), en ENUM('a','b'), st SET('x','y'), js JSON, bt BIT(5));
  INSERT INTO rb.t VALUES (NULL, -1, 200, -300, 40000, 4000000000, -5, 18446744073709551615, -12.345,
   0.5, 1e300, '2024-02-29', '12:34:56.789', '2001-02-03 04:05:06.123456', '2024-05-06 07:08:09', 1999,
   'ab', 'héllo', 'text', x'00ff', x'0102', x'0304', 'b', 'x,y', '{"a": 1}', b'10101');
  INSERT INTO rb.t (id) VALUES (NULL)
SQL
setup.next_result while setup.more_results?
setup.close

client = connect(database: 'rb')
say('server_info', client.server_info[:version] =~ /MariaDB/ ? 'MariaDB' : client.server_info[:version])
say('encoding', client.encoding.to_s, client.query_options[:encoding])
say('ping', client.ping)
say('escape', client.escape("a'b\"c\\d\n\0é"), Mysql2::Client.escape("x'y"))
say('session_track', client.respond_to?(:session_track))
[{}, { cast: false }, { symbolize_keys: true }, { as: :array }, { cast_booleans: true, database_timezone: :utc },
 { stream: true, cache_rows: false }].each do |options|
  result = client.query('SELECT * FROM t ORDER BY id', **options)
  say("query #{options} fields", result.fields)
  say("query #{options} rows", result.to_a)
  say("query #{options} count", result.count) unless options[:stream]
end
result = client.query('SELECT 1 + 1 AS a, 1.5 AS b, NULL AS c, NOW() IS NOT NULL AS d, CAST(1 AS SIGNED) AS e')
say('expressions', result.fields, result.to_a)
say('field types', result.respond_to?(:field_types) ? result.field_types : 'none')

[{}, { symbolize_keys: true }, { as: :array }].each do |options|
  statement = client.prepare('SELECT * FROM t WHERE id >= ? ORDER BY id')
  say("statement #{options} param_count", statement.param_count, statement.field_count)
  say("statement #{options} fields", statement.fields)
  result = statement.execute(0, **options)
  say("statement #{options} result fields", result.fields)
  say("statement #{options} rows", result.to_a)
  statement.close
end
statement = client.prepare('SELECT ? AS i, ? AS f, ? AS s, ? AS n, ? AS t, ? AS d, ? AS b, ? AS big')
step('statement bound') do
  statement.execute(-7, 2.5, 'str', nil, Time.utc(2021, 3, 4, 5, 6, 7), Date.new(2020, 1, 2), true,
                    BigDecimal('12.5')).to_a
end
statement = client.prepare('SELECT 1 + ? AS a, CONCAT(?, vc) AS c, de * 2 AS d, COUNT(*) AS e FROM t WHERE id = ?')
say('statement expressions', statement.fields, statement.execute(41, 'y', 1).to_a)
statement = client.prepare('INSERT INTO t (vc, de, dt) VALUES (?, ?, ?), (?, ?, ?)')
step('statement insert') do
  statement.execute('p', '1.5', '2020-01-01 00:00:00', 'q', nil, nil)
  [statement.affected_rows, statement.last_id, client.affected_rows, client.last_id, client.warning_count,
   client.query_info_string]
end
statement = client.prepare('UPDATE t SET vc = ? WHERE id > ?')
step('statement update') { statement.execute('u', 1); [statement.affected_rows, client.query_info_string] }
step('statement duplicate') { client.prepare('INSERT INTO t (id) VALUES (?)').execute(1) }
step('statement out of range') { client.prepare('INSERT INTO t (ti) VALUES (?)').execute(1000) }
step('statement bad column') { client.prepare('SELECT nope FROM t WHERE id = ?') }
step('statement syntax') { client.prepare('SELEC ?') }
step('statement wrong count') { client.prepare('SELECT ?').execute }
step('statement closed') { s = client.prepare('SELECT 1'); s.close; s.execute }

step('insert') do
  client.query("INSERT INTO t (vc) VALUES ('a'), ('b')")
  [client.affected_rows, client.last_id, client.warning_count, client.query_info_string, client.info]
end
step('update') { client.query("UPDATE t SET vc = 'c' WHERE vc = 'a'"); [client.affected_rows, client.query_info_string] }
step('warnings') do
  client.query("INSERT IGNORE INTO t (id, ti) VALUES (1, 5), (NULL, 300)")
  [client.affected_rows, client.warning_count, client.query_info_string, client.query('SHOW WARNINGS').to_a]
end
step('duplicate') { client.query('INSERT INTO t (id) VALUES (1)') }
step('syntax') { client.query('SELEC 1') }
step('no table') { client.query('SELECT * FROM nope') }
step('two statements') { client.query('SELECT 1; SELECT 2') }
step('no database') { connect(database: 'nodb') }
step('bad login') { Mysql2::Client.new(host: '127.0.0.1', port: PORT, username: 'nobody', password: 'x') }

multi = connect(database: 'rb', flags: Mysql2::Client::MULTI_STATEMENTS)
step('multi') do
  answers = [multi.query("SELECT 1 AS one; UPDATE t SET vc = 'm' WHERE id = 1; SELECT 'x' AS x, 2 AS y").to_a]
  while multi.more_results?
    multi.next_result
    result = multi.store_result
    answers << (result ? [result.fields, result.to_a] : [multi.affected_rows, multi.query_info_string])
  end
  answers
end
step('multi error') do
  answers = [multi.query('SELECT 1; SELEC 2; SELECT 3').to_a]
  while multi.more_results?
    multi.next_result
    answers << multi.store_result&.to_a
  end
  answers
end
step('multi after error') { multi.query('SELECT 5 AS five').to_a }
step('multi abandoned') { multi.query('SELECT 1; SELECT 2'); multi.query('SELECT 3') }

step('transaction') do
  client.query('BEGIN')
  client.query('DELETE FROM t')
  client.query('ROLLBACK')
  client.query('SELECT COUNT(*) AS n FROM t').to_a
end
step('set_server_option') { multi.set_server_option(Mysql2::Client::OPTION_MULTI_STATEMENTS_OFF); multi.query('SELECT 1; SELECT 2') }
step('abandon') { client.abandon_results! }
[%w[utf8mb4], %w[latin1], %w[utf8], %w[binary]].each do |(encoding)|
  step("encoding #{encoding}") do
    c = connect(database: 'rb', encoding: encoding)
    [c.encoding.to_s, c.query("SELECT @@character_set_client AS a, @@collation_connection AS b, vc FROM t WHERE id = 1").to_a]
  end
end
step('closed') { c = connect; c.close; [c.closed?, c.ping] }
step('affected_rows after select') { client.query('SELECT 1'); client.affected_rows }
