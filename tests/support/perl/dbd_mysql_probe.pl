#!/usr/bin/perl
# One run of Perl's DBD::mysql (the driver of percona-toolkit, over libmariadb) against a
# server, with mysql_server_prepare=0 (text protocol) and =1 (binary protocol, server-side
# prepares): each statement's column attributes (NAME, TYPE, PRECISION, SCALE, NULLABLE,
# mysql_type, ...), rows, counts (rows, last_insert_id) and errors (err, errstr, state), one
# line per step on stdout. tests/integration/test_perl_dbd_mysql_mariadb.py runs it on MariaDB
# and on ours and compares. Usage: perl dbd_mysql_probe.pl PORT
use strict;
use warnings;
use DBI;

my $port = $ARGV[0];
$| = 1;

sub show {
    my ($v) = @_;
    return 'undef' unless defined $v;
    return '[' . join(', ', map { show($_) } @$v) . ']' if ref $v eq 'ARRAY';
    return unpack('H*', $v) if $v =~ /[^\x20-\x7e]/;
    return "'$v'";
}

sub say_step {
    my ($name, @values) = @_;
    print "$name: ", join(' | ', map { show($_) } @values), "\n";
}

my $setup = DBI->connect("DBI:mysql:host=127.0.0.1;port=$port", 'root', '', { RaiseError => 1, PrintError => 0 });
$setup->do($_) for (
    'DROP DATABASE IF EXISTS pl', 'CREATE DATABASE pl',
    q{CREATE TABLE pl.t (id INT AUTO_INCREMENT PRIMARY KEY, ti TINYINT NOT NULL DEFAULT 0, tu TINYINT UNSIGNED,
      si SMALLINT, mi MEDIUMINT, i INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED, de DECIMAL(12,3), fl FLOAT,
      db DOUBLE, da DATE, tm TIME(3), dt DATETIME(6), ts TIMESTAMP NULL, yr YEAR, ch CHAR(4), vc VARCHAR(30),
      tx TEXT, bl BLOB, bn BINARY(2), vb VARBINARY(5), en ENUM('a','b'), st SET('x','y'), js JSON, bt BIT(5))},
    q{INSERT INTO pl.t VALUES (NULL, -1, 200, -300, 40000, 4000000000, -5, 18446744073709551615, -12.345,
      0.5, 1e300, '2024-02-29', '12:34:56.789', '2001-02-03 04:05:06.123456', '2024-05-06 07:08:09', 1999,
      'ab', 'héllo', 'text', x'00ff', x'0102', x'0304', 'b', 'x,y', '{"a": 1}', b'10101')},
    'INSERT INTO pl.t (id) VALUES (NULL)',
);
$setup->disconnect;

for my $server_prepare (0, 1) {
    my $tag = "prepare=$server_prepare";
    my $dbh = DBI->connect("DBI:mysql:database=pl;host=127.0.0.1;port=$port;mysql_server_prepare=$server_prepare",
                           'root', '', { RaiseError => 0, PrintError => 0, mysql_enable_utf8mb4 => 1 });
    my $sth = $dbh->prepare('SELECT * FROM t WHERE id >= ? ORDER BY id');
    $sth->execute(0);
    for my $attr (qw(NAME TYPE PRECISION SCALE NULLABLE mysql_type mysql_type_name mysql_is_num mysql_is_blob
                     mysql_is_key mysql_is_pri_key mysql_is_auto_increment mysql_max_length)) {
        say_step("$tag $attr", $sth->{$attr});
    }
    while (my $row = $sth->fetchrow_arrayref) {
        say_step("$tag row", [@$row]);
    }
    say_step("$tag rows", $sth->rows);
    $sth = $dbh->prepare('SELECT 1 + ? AS a, CONCAT(?, vc) AS c, de * 2 AS d, COUNT(*) AS e FROM t WHERE id = ?');
    $sth->execute(41, 'y', 1);
    say_step("$tag expression types", $sth->{TYPE}, $sth->{PRECISION}, $sth->{SCALE}, $sth->{mysql_type});
    say_step("$tag expression row", $sth->fetchrow_arrayref);
    $sth = $dbh->prepare('INSERT INTO t (vc, de, dt) VALUES (?, ?, ?), (?, ?, ?)');
    say_step("$tag insert", $sth->execute('p', '1.5', '2020-01-01 00:00:00', 'q', undef, undef),
             $sth->rows, $dbh->last_insert_id(undef, undef, undef, undef), $sth->{mysql_insertid},
             $dbh->{mysql_info}, $dbh->{mysql_warning_count});
    $sth = $dbh->prepare('UPDATE t SET vc = ? WHERE id > ?');
    say_step("$tag update", $sth->execute('u', 1), $sth->rows, $dbh->{mysql_info});
    say_step("$tag do", $dbh->do('DELETE FROM t WHERE vc = ?', undef, 'nothing'), $dbh->{mysql_info});
    $sth = $dbh->prepare('INSERT INTO t (id) VALUES (?)');
    say_step("$tag duplicate", $sth->execute(1), $sth->err, $sth->errstr, $sth->state, $dbh->err, $dbh->state);
    $sth = $dbh->prepare('INSERT INTO t (ti) VALUES (?)');
    say_step("$tag out of range", $sth->execute(1000), $sth->err, $sth->errstr, $sth->state);
    $sth = $dbh->prepare('SELECT nope FROM t WHERE id = ?');
    say_step("$tag bad column", $sth ? $sth->execute(1) : undef, $dbh->err, $dbh->errstr, $dbh->state);
    say_step("$tag syntax", $dbh->do('SELEC 1'), $dbh->err, $dbh->errstr, $dbh->state);
    say_step("$tag no table", $dbh->do('SELECT * FROM nope'), $dbh->err, $dbh->errstr, $dbh->state);
    say_step("$tag two statements", $dbh->do('SELECT 1; SELECT 2'), $dbh->err, $dbh->errstr);
    say_step("$tag selectall", $dbh->selectall_arrayref('SELECT id, vc, yr FROM t WHERE id <= ? ORDER BY id', undef, 2));
    $dbh->begin_work;
    $dbh->do('DELETE FROM t');
    $dbh->rollback;
    say_step("$tag rollback", $dbh->selectrow_arrayref('SELECT COUNT(*) FROM t'));
    say_step("$tag ping", $dbh->ping);
    say_step("$tag quote", $dbh->quote("a'b\\c"));
    $dbh->disconnect;
}

# the driver's own character set (no mysql_enable_utf8mb4), and multi-statements
my $dbh = DBI->connect("DBI:mysql:database=pl;host=127.0.0.1;port=$port;mysql_multi_statements=1", 'root', '',
                       { RaiseError => 0, PrintError => 0 });
say_step('default charset', $dbh->selectrow_arrayref('SELECT @@character_set_client, @@collation_connection'));
my $sth = $dbh->prepare('SELECT id, vc, tx, js FROM t ORDER BY id LIMIT 1');
$sth->execute;
say_step('default charset columns', $sth->{PRECISION}, $sth->{mysql_type}, $sth->fetchrow_arrayref);
$sth = $dbh->prepare("SELECT 1 AS a; SELECT 'x' AS b; UPDATE t SET vc = 'm' WHERE id = 1");
$sth->execute;
my $set = 0;
do {
    say_step("multi-statement $set", $sth->{NUM_OF_FIELDS} ? $sth->fetchall_arrayref : undef, $sth->rows);
    $set++;
} while ($sth->more_results);
$dbh->disconnect;
