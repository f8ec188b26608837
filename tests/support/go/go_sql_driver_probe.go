// One run of Go's go-sql-driver/mysql (database/sql; gh-ost's and orchestrator's driver) against
// a server: with interpolateParams=false (every query with arguments prepared, binary protocol)
// and =true (text protocol), parseTime=false and =true, each column's ColumnTypes()
// (DatabaseTypeName, Nullable, DecimalSize, Length, ScanType) and values scanned into any;
// LastInsertId / RowsAffected, *mysql.MySQLError (Number, Message), multiStatements,
// transactions with isolation levels and READ ONLY, LOAD DATA LOCAL INFILE, KILL QUERY,
// columnsWithAlias, clientFoundRows, rejectReadOnly, charset / collation, maxAllowedPacket=0 and
// tls=skip-verify: one line per step on stdout. tests/integration/test_go_sql_driver_mariadb.py
// runs it on MariaDB and on ours and compares. Usage: go run go_sql_driver_probe.go PORT
package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

var port string

func show(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case []byte:
		return fmt.Sprintf("[]byte(%q)", x)
	case sql.RawBytes:
		return fmt.Sprintf("RawBytes(%q)", []byte(x))
	case time.Time:
		return "time(" + x.Format(time.RFC3339Nano) + ")"
	case error:
		var me *mysql.MySQLError
		if errors.As(x, &me) {
			return fmt.Sprintf("MySQLError(%d, %q)", me.Number, me.Message)
		}
		return fmt.Sprintf("error(%q)", x.Error())
	default:
		return fmt.Sprintf("%T(%v)", v, v)
	}
}

func say(name string, values ...any) {
	parts := make([]string, len(values))
	for i, v := range values {
		parts[i] = show(v)
	}
	fmt.Printf("%s: %s\n", name, strings.Join(parts, " | "))
}

func open(params string) *sql.DB {
	dsn := "root@tcp(127.0.0.1:" + port + ")/gp"
	if params != "" {
		dsn += "?" + params
	}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		panic(err)
	}
	db.SetMaxOpenConns(1)
	return db
}

// the rows of a query: its column types, then every row scanned into any
func showRows(tag string, rows *sql.Rows, err error) {
	if err != nil {
		say(tag+" error", err)
		return
	}
	defer rows.Close()
	columns, _ := rows.Columns()
	say(tag+" columns", strings.Join(columns, ","))
	types, _ := rows.ColumnTypes()
	for _, ct := range types {
		nullable, nullableOk := ct.Nullable()
		precision, scale, decimalOk := ct.DecimalSize()
		length, lengthOk := ct.Length()
		say(tag+" type "+ct.Name(), ct.DatabaseTypeName(), nullable, nullableOk, precision, scale, decimalOk,
			length, lengthOk, ct.ScanType().String())
	}
	for rows.Next() {
		values := make([]any, len(columns))
		pointers := make([]any, len(columns))
		for i := range values {
			pointers[i] = &values[i]
		}
		if err := rows.Scan(pointers...); err != nil {
			say(tag+" scan", err)
			return
		}
		say(tag+" row", values...)
	}
	say(tag+" end", rows.Err())
}

// what an Exec answered: LastInsertId and RowsAffected, or the error (showResult(tag)(db.Exec(...)))
func showResult(tag string) func(sql.Result, error) {
	return func(result sql.Result, err error) {
		if err != nil {
			say(tag, err)
			return
		}
		id, idErr := result.LastInsertId()
		affected, affectedErr := result.RowsAffected()
		say(tag, id, idErr, affected, affectedErr)
	}
}

func setup() {
	db, err := sql.Open("mysql", "root@tcp(127.0.0.1:"+port+")/?multiStatements=true")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	for _, statement := range []string{
		"DROP DATABASE IF EXISTS gp", "CREATE DATABASE gp",
		`CREATE TABLE gp.t (id INT AUTO_INCREMENT PRIMARY KEY, ti TINYINT NOT NULL DEFAULT 0, tu TINYINT UNSIGNED,
		 si SMALLINT, mi MEDIUMINT, i INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED, de DECIMAL(12,3), fl FLOAT,
		 db DOUBLE, da DATE, tm TIME(3), dt DATETIME(6), ts TIMESTAMP NULL, yr YEAR, ch CHAR(4), vc VARCHAR(30),
		 tx TEXT, bl BLOB, bn BINARY(2), vb VARBINARY(5), en ENUM('a','b'), st SET('x','y'), js JSON, bt BIT(5))`,
		`INSERT INTO gp.t VALUES (NULL, -1, 200, -300, 40000, 4000000000, -5, 18446744073709551615, -12.345,
		 0.5, 1e300, '2024-02-29', '12:34:56.789', '2001-02-03 04:05:06.123456', '2024-05-06 07:08:09', 1999,
		 'ab', 'héllo', 'text', x'00ff', x'0102', x'0304', 'b', 'x,y', '{"a": 1}', b'10101')`,
		"INSERT INTO gp.t (id) VALUES (NULL)",
		"CREATE TABLE gp.k (id INT PRIMARY KEY, v VARCHAR(10), n INT)",
		"INSERT INTO gp.k VALUES (1, 'a', 10), (2, 'b', 20)",
	} {
		if _, err := db.Exec(statement); err != nil {
			panic(err)
		}
	}
}

func variant(interpolate, parseTime bool) {
	tag := fmt.Sprintf("interpolate=%v parseTime=%v", interpolate, parseTime)
	db := open(fmt.Sprintf("interpolateParams=%v&parseTime=%v", interpolate, parseTime))
	defer db.Close()
	rows, err := db.Query("SELECT * FROM t WHERE id >= ? ORDER BY id", 0)
	showRows(tag+" args", rows, err)
	rows, err = db.Query("SELECT * FROM t ORDER BY id")
	showRows(tag+" text", rows, err)
	rows, err = db.Query("SELECT 1 + ? AS a, CONCAT(?, vc) AS c, de * 2 AS d, COUNT(*) AS e, NULL AS n, "+
		"NOW() IS NOT NULL AS b, CAST(? AS DATETIME) AS w, CAST(? AS DECIMAL(5,2)) AS x FROM t WHERE id = ?",
		41, "y", "2020-01-02 03:04:05", 1.25, 1)
	showRows(tag+" expressions", rows, err)
	rows, err = db.Query("SELECT ? AS i, ? AS u, ? AS f, ? AS s, ? AS b, ? AS t, ? AS z, ? AS o",
		int64(-7), uint64(18446744073709551615), 2.5, "str", []byte{0, 1, 255},
		time.Date(2021, 3, 4, 5, 6, 7, 890000000, time.UTC), nil, true)
	showRows(tag+" bound", rows, err)
	showResult(tag + " insert")(db.Exec("INSERT INTO t (vc, de, dt) VALUES (?, ?, ?), (?, ?, ?)",
		"p", "1.5", "2020-01-01 00:00:00", "q", nil, nil))
	showResult(tag + " insert time")(db.Exec("INSERT INTO t (dt, da, ts) VALUES (?, ?, ?)",
		time.Date(2022, 1, 2, 3, 4, 5, 6000, time.UTC), time.Date(2022, 1, 2, 0, 0, 0, 0, time.UTC),
		time.Date(2023, 6, 7, 8, 9, 10, 0, time.UTC)))
	rows, err = db.Query("SELECT dt, da, ts FROM t WHERE id = LAST_INSERT_ID()")
	showRows(tag+" time back", rows, err)
	showResult(tag + " update")(db.Exec("UPDATE t SET vc = ? WHERE id > ?", "u", 1))
	showResult(tag + " update same")(db.Exec("UPDATE t SET vc = ? WHERE id > ?", "u", 1))
	showResult(tag + " delete none")(db.Exec("DELETE FROM t WHERE vc = ?", "nothing"))
	showResult(tag + " duplicate")(db.Exec("INSERT INTO t (id) VALUES (?)", 1))
	showResult(tag + " out of range")(db.Exec("INSERT INTO t (ti) VALUES (?)", 1000))
	showResult(tag + " bad column")(db.Exec("SELECT nope FROM t WHERE id = ?", 1))
	showResult(tag + " syntax")(db.Exec("SELEC ?", 1))
	rows, err = db.Query("SELECT * FROM nope WHERE a = ?", 1)
	showRows(tag+" no table", rows, err)
	showResult(tag + " two statements")(db.Exec("SELECT 1; SELECT 2"))
	var count int
	say(tag+" query row", db.QueryRow("SELECT COUNT(*) FROM t WHERE id > ?", 0).Scan(&count), count)
	var missing string
	say(tag+" no rows", db.QueryRow("SELECT vc FROM t WHERE id = ?", -1).Scan(&missing))
	statement, err := db.Prepare("SELECT id, vc FROM t WHERE id = ? OR vc = ?")
	if err != nil {
		say(tag+" prepare", err)
	} else {
		for _, id := range []int{1, 2} {
			rows, err = statement.Query(id, "zz")
			showRows(fmt.Sprintf("%s prepared %d", tag, id), rows, err)
		}
		statement.Close()
	}
	db.Exec("DELETE FROM t WHERE id > 2")
	db.Exec("ALTER TABLE t AUTO_INCREMENT = 3")
}

func multiStatements() {
	db := open("multiStatements=true")
	defer db.Close()
	showResult("multi exec")(db.Exec("INSERT INTO k VALUES (3, 'c', 30); UPDATE k SET n = n + 1"))
	rows, err := db.Query("SELECT 1 AS one; SELECT v, n FROM k ORDER BY id; SELECT 'x' AS x")
	if err != nil {
		say("multi query", err)
		return
	}
	for set := 0; ; set++ {
		showRows(fmt.Sprintf("multi set %d", set), rows, nil)
		if !rows.NextResultSet() {
			break
		}
	}
	say("multi done", rows.Err())
	rows.Close()
	rows, err = db.Query("SELECT 1; SELEC 2")
	if err == nil {
		showRows("multi error first", rows, nil)
		say("multi error next", rows.NextResultSet(), rows.Err())
		rows.Close()
	} else {
		say("multi error", err)
	}
	db.Exec("DELETE FROM k WHERE id = 3; UPDATE k SET n = n - 1")
}

func transactions() {
	db := open("")
	defer db.Close()
	ctx := context.Background()
	for _, level := range []sql.IsolationLevel{sql.LevelReadUncommitted, sql.LevelReadCommitted,
		sql.LevelRepeatableRead, sql.LevelSerializable} {
		tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: level})
		if err != nil {
			say("begin "+level.String(), err)
			continue
		}
		var isolation, next string
		err = tx.QueryRow("SELECT @@tx_isolation, @@session.tx_isolation").Scan(&isolation, &next)
		say("tx "+level.String(), err, isolation, next)
		_, err = tx.Exec("UPDATE k SET n = n + 1 WHERE id = 1")
		say("tx write "+level.String(), err, tx.Rollback())
	}
	_, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSnapshot})
	say("begin snapshot", err)
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		say("read only begin", err)
	} else {
		var n int
		say("read only select", tx.QueryRow("SELECT n FROM k WHERE id = 1").Scan(&n), n)
		_, err = tx.Exec("UPDATE k SET n = 0")
		say("read only write", err)
		say("read only commit", tx.Commit())
	}
	tx, _ = db.Begin()
	tx.Exec("DELETE FROM k")
	say("rollback", tx.Rollback())
	var count int
	say("after rollback", db.QueryRow("SELECT COUNT(*) FROM k").Scan(&count), count)
	tx, _ = db.Begin()
	showResult("tx insert")(tx.Exec("INSERT INTO k VALUES (?, ?, ?)", 9, "z", 90))
	say("commit", tx.Commit(), db.QueryRow("SELECT COUNT(*) FROM k").Scan(&count), count)
	say("commit again", tx.Commit())
	db.Exec("DELETE FROM k WHERE id = 9")
}

// LOAD DATA LOCAL INFILE (the file's name, which differs between runs, shown as FILE)
func loadData(dir string) {
	path := dir + "/go_probe_load.csv"
	local := func(tag string) func(sql.Result, error) {
		return func(result sql.Result, err error) {
			if err != nil && !errors.As(err, new(*mysql.MySQLError)) {
				err = errors.New(strings.ReplaceAll(err.Error(), path, "FILE"))
			}
			showResult(tag)(result, err)
		}
	}
	os.WriteFile(path, []byte("5,e,50\n6,f,60\n"), 0o644)
	defer os.Remove(path)
	mysql.RegisterLocalFile(path)
	db := open("")
	defer db.Close()
	local("load local")(db.Exec("LOAD DATA LOCAL INFILE '" + path + "' INTO TABLE k FIELDS TERMINATED BY ','"))
	mysql.DeregisterLocalFile(path)
	local("load unregistered")(db.Exec("LOAD DATA LOCAL INFILE '" + path + "' INTO TABLE k FIELDS TERMINATED BY ','"))
	allowed := open("allowAllFiles=true")
	defer allowed.Close()
	local("load allowAllFiles")(allowed.Exec("LOAD DATA LOCAL INFILE '" + path + "' REPLACE INTO TABLE k FIELDS TERMINATED BY ','"))
	local("load missing")(allowed.Exec("LOAD DATA LOCAL INFILE '" + path + ".none' INTO TABLE k"))
	rows, err := allowed.Query("SELECT * FROM k ORDER BY id")
	showRows("loaded", rows, err)
	allowed.Exec("DELETE FROM k WHERE id > 2")
}

func cancel() {
	db := open("")
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		say("cancel conn", err)
		return
	}
	var id int64
	conn.QueryRowContext(context.Background(), "SELECT CONNECTION_ID()").Scan(&id)
	killer := open("")
	defer killer.Close()
	done := make(chan struct{})
	go func() {
		time.Sleep(300 * time.Millisecond)
		_, err := killer.Exec(fmt.Sprintf("KILL QUERY %d", id))
		say("kill query", err)
		close(done)
	}()
	var slept int64
	err = conn.QueryRowContext(context.Background(), "SELECT SLEEP(5)").Scan(&slept)
	<-done
	say("killed sleep", err, slept)
	say("after kill", conn.PingContext(context.Background()))
	conn.Close()
	ctx, stop := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer stop()
	_, err = db.ExecContext(ctx, "DO SLEEP(3)")
	say("context timeout", err)
	var one int
	say("after timeout", db.QueryRow("SELECT 1").Scan(&one), one)
}

func options() {
	db := open("columnsWithAlias=true")
	rows, err := db.Query("SELECT k.id, k.v AS w, 1 + 1 AS two, n FROM k ORDER BY id")
	showRows("columnsWithAlias", rows, err)
	db.Close()
	for _, found := range []bool{false, true} {
		db = open(fmt.Sprintf("clientFoundRows=%v", found))
		showResult(fmt.Sprintf("clientFoundRows=%v update same", found))(db.Exec("UPDATE k SET v = v"))
		showResult(fmt.Sprintf("clientFoundRows=%v update one", found))(db.Exec("UPDATE k SET n = n WHERE id = ?", 1))
		showResult(fmt.Sprintf("clientFoundRows=%v upsert", found))(
			db.Exec("INSERT INTO k VALUES (1, 'a', 10) ON DUPLICATE KEY UPDATE n = 10"))
		db.Close()
	}
	db = open("rejectReadOnly=true")
	tx, err := db.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err == nil {
		_, err = tx.Exec("INSERT INTO k VALUES (7, 'g', 70)")
		say("rejectReadOnly write", err)
		tx.Rollback()
	}
	db.Close()
	for _, params := range []string{"charset=utf8mb4", "charset=latin1", "collation=utf8mb4_unicode_ci",
		"collation=latin1_swedish_ci", "charset=utf8mb4,utf8", "collation=utf8_general_ci"} {
		db = open(params)
		rows, err = db.Query("SELECT @@character_set_client, @@character_set_connection, @@character_set_results, " +
			"@@collation_connection, 'é' AS e, HEX('é') AS h")
		showRows(params, rows, err)
		db.Close()
	}
	db = open("maxAllowedPacket=0") // the driver reads @@max_allowed_packet at connect
	var packet int64
	say("maxAllowedPacket=0 packet", db.QueryRow("SELECT @@max_allowed_packet").Scan(&packet), packet)
	big := strings.Repeat("x", 17<<20)
	var length int64
	say("maxAllowedPacket=0 17 MiB", db.QueryRow("SELECT LENGTH(?)", big).Scan(&length), length)
	db.Close()
	db = open("tls=skip-verify")
	rows, err = db.Query("SHOW SESSION STATUS LIKE 'Ssl_version'")
	showRows("tls", rows, err)
	db.Close()
	db = open("")
	say("ping", db.Ping())
	db.Close()
	bad, _ := sql.Open("mysql", "nobody:wrong@tcp(127.0.0.1:"+port+")/gp")
	say("bad login", bad.Ping())
	bad.Close()
	nodb, _ := sql.Open("mysql", "root@tcp(127.0.0.1:"+port+")/nodb")
	say("no database", nodb.Ping())
	nodb.Close()
}

func main() {
	port = os.Args[1]
	dir, _ := os.MkdirTemp("", "go_probe")
	defer os.RemoveAll(dir)
	setup()
	for _, interpolate := range []bool{false, true} {
		for _, parseTime := range []bool{false, true} {
			variant(interpolate, parseTime)
		}
	}
	multiStatements()
	transactions()
	loadData(dir)
	cancel()
	options()
}
