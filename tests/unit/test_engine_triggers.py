"""engine/triggers.py: CREATE / DROP TRIGGER kept in the catalog and fired as SQLite triggers."""

from __future__ import annotations

import pytest

from engine import Engine
from protocol.errors import SQLError
from server.sql import split_statements
from tests.unit import test_engine_views
from tests.unit.test_engine import run

engine = test_engine_views.engine  # (its fixture: an engine in a fresh datadir)
rows = test_engine_views.rows


@pytest.fixture
async def db(engine):
    session = engine.session(1)
    await run(engine, session, "CREATE DATABASE test")
    session.database = "test"
    await run(engine, session, "CREATE TABLE t (id INT PRIMARY KEY, a INT, s VARCHAR(10))")
    await run(engine, session, "CREATE TABLE u (id INT PRIMARY KEY, a INT, s VARCHAR(10))")
    return session


async def error(engine, session, sql) -> int:
    with pytest.raises(SQLError) as e:
        await run(engine, session, sql)
    return e.value.code


async def test_pt_online_schema_change_triggers_copy_every_change(engine, db):
    # the three triggers pt-online-schema-change makes (its REPLACE INTO / DELETE IGNORE bodies)
    await run(engine, db, "CREATE TRIGGER `pt_osc_test_t_ins` AFTER INSERT ON `test`.`t` FOR EACH ROW "
                          "REPLACE INTO `test`.`u` (`id`, `a`, `s`) VALUES (NEW.`id`, NEW.`a`, NEW.`s`)")
    await run(engine, db, "CREATE TRIGGER `pt_osc_test_t_upd` AFTER UPDATE ON `test`.`t` FOR EACH ROW BEGIN "
                          "DELETE IGNORE FROM `test`.`u` WHERE !(OLD.`id` <=> NEW.`id`) AND `test`.`u`.`id` <=> OLD.`id`;"
                          "REPLACE INTO `test`.`u` (`id`, `a`, `s`) VALUES (NEW.`id`, NEW.`a`, NEW.`s`);END")
    await run(engine, db, "CREATE TRIGGER `pt_osc_test_t_del` AFTER DELETE ON `test`.`t` FOR EACH ROW "
                          "DELETE IGNORE FROM `test`.`u` WHERE `test`.`u`.`id` <=> OLD.`id`")
    await run(engine, db, "INSERT INTO t VALUES (1, 10, 'x'), (2, 20, 'y'), (3, 30, 'it''s')")
    await run(engine, db, "UPDATE t SET a = a + 1 WHERE id = 2")
    await run(engine, db, "UPDATE t SET id = 7 WHERE id = 3")
    await run(engine, db, "DELETE FROM t WHERE id = 1")
    assert await rows(engine, db, "SELECT * FROM u ORDER BY id") == [(2, 21, "y"), (7, 30, "it's")]
    assert await rows(engine, db, "SELECT * FROM t ORDER BY id") == await rows(engine, db, "SELECT * FROM u ORDER BY id")


async def test_listings_order_and_drop(engine, db):
    await run(engine, db, "CREATE TRIGGER b AFTER INSERT ON t FOR EACH ROW INSERT INTO u VALUES (NEW.id, 2, 'b')")
    await run(engine, db, "CREATE TRIGGER a AFTER INSERT ON t FOR EACH ROW PRECEDES b "
                          "INSERT INTO u VALUES (NEW.id + 100, 1, 'a')")
    listed = await rows(engine, db, "SHOW TRIGGERS")
    assert [(r[0], r[1], r[2], r[4]) for r in listed] == [("a", "INSERT", "t", "AFTER"), ("b", "INSERT", "t", "AFTER")]
    assert await rows(engine, db, "SELECT TRIGGER_NAME, ACTION_ORDER, ACTION_STATEMENT FROM information_schema.TRIGGERS") == [
        ("a", 1, "INSERT INTO u VALUES (NEW.id + 100, 1, 'a')"), ("b", 2, "INSERT INTO u VALUES (NEW.id, 2, 'b')")]
    shown = (await rows(engine, db, "SHOW CREATE TRIGGER a"))[0]
    assert shown[2] == "CREATE DEFINER=`root`@`localhost` TRIGGER a AFTER INSERT ON t FOR EACH ROW " \
                       "INSERT INTO u VALUES (NEW.id + 100, 1, 'a')"
    await run(engine, db, "INSERT INTO t VALUES (5, 0, '')")
    assert await rows(engine, db, "SELECT id FROM u ORDER BY id") == [(5,), (105,)]
    await run(engine, db, "DROP TRIGGER a")
    assert await error(engine, db, "DROP TRIGGER a") == 1360
    await run(engine, db, "DROP TRIGGER IF EXISTS a")
    await run(engine, db, "INSERT INTO t VALUES (6, 0, '')")
    assert await rows(engine, db, "SELECT id FROM u ORDER BY id") == [(5,), (6,), (105,)]
    assert await rows(engine, db, "SELECT TRIGGER_NAME, ACTION_ORDER FROM information_schema.TRIGGERS") == [("b", 1)]


async def test_mariadb_errors(engine, db):
    make = "CREATE TRIGGER x {} ON {} FOR EACH ROW {}"
    assert await error(engine, db, make.format("AFTER DELETE", "t", "INSERT INTO u VALUES (NEW.id, 1, '')")) == 1363
    assert await error(engine, db, make.format("AFTER INSERT", "t", "INSERT INTO u VALUES (OLD.id, 1, '')")) == 1363
    assert await error(engine, db, make.format("AFTER INSERT", "t", "INSERT INTO u VALUES (NEW.zz, 1, '')")) == 1054
    assert await error(engine, db, make.format("AFTER INSERT", "nope", "DELETE FROM u")) == 1146
    assert await error(engine, db, make.format("AFTER INSERT", "t", "SET NEW.a = 1")) == 1362
    assert await error(engine, db, make.format("AFTER INSERT", "t FOR EACH ROW FOLLOWS nope", "DELETE FROM u")
                       .replace("FOR EACH ROW FOR EACH ROW", "FOR EACH ROW")) == 4031
    await run(engine, db, make.format("AFTER INSERT", "t", "DELETE FROM u"))
    assert await error(engine, db, make.format("AFTER INSERT", "t", "DELETE FROM u")) == 1359
    await run(engine, db, "CREATE TRIGGER IF NOT EXISTS x AFTER INSERT ON t FOR EACH ROW DELETE FROM u")
    # a statement whose trigger writes its own table: 1442 when it runs, and nothing written
    await run(engine, db, "CREATE TRIGGER y AFTER UPDATE ON t FOR EACH ROW INSERT INTO t VALUES (NEW.id + 100, 1, '')")
    await run(engine, db, "INSERT INTO t VALUES (1, 1, '')")
    assert await error(engine, db, "UPDATE t SET a = 2") == 1442
    assert await rows(engine, db, "SELECT id, a FROM t") == [(1, 1)]


async def test_triggers_survive_alter_rename_and_restart(tmp_path):
    engine = await Engine.open(tmp_path / "data")
    session = engine.session(1)
    await run(engine, session, "CREATE DATABASE test")
    session.database = "test"
    await run(engine, session, "CREATE TABLE t (id INT PRIMARY KEY, a INT)")
    await run(engine, session, "CREATE TABLE log (id INT PRIMARY KEY, a INT)")
    await run(engine, session, "CREATE TRIGGER t_ai AFTER INSERT ON t FOR EACH ROW INSERT INTO log VALUES (NEW.id, NEW.a)")
    await run(engine, session, "ALTER TABLE t ADD COLUMN b INT")
    await run(engine, session, "INSERT INTO t VALUES (1, 10, 0)")
    await run(engine, session, "RENAME TABLE t TO t2")
    await run(engine, session, "ALTER TABLE t2 RENAME TO t3, ADD COLUMN c INT")
    await run(engine, session, "RENAME TABLE t3 TO t2")
    await run(engine, session, "INSERT INTO t2 VALUES (2, 20, 0, 0)")
    assert (await rows(engine, session, "SHOW TRIGGERS"))[0][2] == "t2"
    await engine.close()
    engine = await Engine.open(tmp_path / "data")
    session = engine.session(1)
    session.database = "test"
    await run(engine, session, "INSERT INTO t2 VALUES (3, 30, 0, 0)")
    assert await rows(engine, session, "SELECT * FROM log ORDER BY id") == [(1, 10), (2, 20), (3, 30)]
    await run(engine, session, "DROP TABLE t2")
    assert await rows(engine, session, "SHOW TRIGGERS") == []
    await engine.close()


async def test_unsupported_bodies_refused(engine, db):
    await run(engine, db, "CREATE DATABASE other")
    await run(engine, db, "CREATE TABLE other.u (id INT PRIMARY KEY, a INT, s VARCHAR(10))")
    make = "CREATE TRIGGER x BEFORE INSERT ON t FOR EACH ROW {}"
    assert await error(engine, db, make.format("SET @v = NEW.a")) == 1235
    assert await error(engine, db, make.format("INSERT INTO u VALUES (NEW.id, @v, '')")) == 1235
    assert await error(engine, db, make.format("INSERT INTO other.u VALUES (NEW.id, 1, '')")) == 1235
    await run(engine, db, make.format("INSERT INTO u VALUES (NEW.id, 1, '')"))  # what runs is made
    assert [r[0] for r in await rows(engine, db, "SHOW TRIGGERS")] == ["x"]


async def test_before_triggers_assign_new_columns(engine, db):
    await run(engine, db, "CREATE TRIGGER t_bi BEFORE INSERT ON t FOR EACH ROW BEGIN "
                          "SET NEW.s = CONCAT('n', NEW.a), NEW.a = NEW.a * 2; INSERT INTO u VALUES (NEW.id, NEW.a, NEW.s); END")
    await run(engine, db, "CREATE TRIGGER t_bu BEFORE UPDATE ON t FOR EACH ROW SET NEW.a = OLD.a + 100")
    await run(engine, db, "CREATE TRIGGER t_au AFTER UPDATE ON t FOR EACH ROW UPDATE u SET s = NEW.a WHERE id = NEW.id")
    await run(engine, db, "INSERT INTO t (id, a) VALUES (1, 5), (2, 6)")
    assert await rows(engine, db, "SELECT * FROM t ORDER BY id") == [(1, 10, "n5"), (2, 12, "n6")]
    assert await rows(engine, db, "SELECT * FROM u ORDER BY id") == [(1, 10, "n5"), (2, 12, "n6")]
    # an UPDATE that leaves the row as it was fires them too; the SET's own UPDATE fires none
    await run(engine, db, "UPDATE t SET a = a WHERE id = 1")
    assert await rows(engine, db, "SELECT * FROM t ORDER BY id") == [(1, 110, "n5"), (2, 12, "n6")]
    assert await rows(engine, db, "SELECT * FROM u ORDER BY id") == [(1, 10, "110"), (2, 12, "n6")]
    # the column's strict-mode conversion of the value, naming row 0 as MariaDB's does
    await run(engine, db, "CREATE TRIGGER t_bd BEFORE INSERT ON u FOR EACH ROW SET NEW.s = REPEAT('x', NEW.a)")
    with pytest.raises(SQLError) as e:
        await run(engine, db, "INSERT INTO u VALUES (3, 11, '')")
    assert (e.value.code, e.value.message) == (1406, "Data too long for column 's' at row 0")
    assert await error(engine, db, "CREATE TRIGGER x BEFORE DELETE ON t FOR EACH ROW SET NEW.a = 1") == 1363
    assert await error(engine, db, "CREATE TRIGGER x BEFORE UPDATE ON t FOR EACH ROW SET NEW.zz = 1") == 1054


async def test_if_and_signal_in_bodies(engine, db):
    await run(engine, db, "CREATE TRIGGER t_bi BEFORE INSERT ON t FOR EACH ROW "
                          "IF NEW.a IS NULL THEN SET NEW.a = 1, NEW.s = 'dflt'; SET NEW.a = NEW.a + 1; "
                          "ELSEIF NEW.a < 0 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'neg'; END IF")
    await run(engine, db, "INSERT INTO t (id, a) VALUES (1, NULL), (2, 5)")
    # the IF's condition read once: its branch's second SET runs though the first made a non-NULL
    assert await rows(engine, db, "SELECT * FROM t ORDER BY id") == [(1, 2, "dflt"), (2, 5, None)]
    with pytest.raises(SQLError) as e:
        await run(engine, db, "INSERT INTO t (id, a) VALUES (3, 1), (4, -1)")
    assert (e.value.code, e.value.sqlstate, e.value.message) == (1644, "45000", "neg")
    assert await rows(engine, db, "SELECT COUNT(*) FROM t") == [(2,)]
    assert await error(engine, db, "CREATE TRIGGER x BEFORE DELETE ON t FOR EACH ROW SIGNAL SQLSTATE '00000'") == 1407
    assert await error(engine, db, "CREATE TRIGGER x BEFORE DELETE ON t FOR EACH ROW BEGIN DECLARE n INT; "
                                   "WHILE n < 3 DO SET n = n + 1; END WHILE; END") == 1235
    assert await error(engine, db, "CREATE TRIGGER x BEFORE DELETE ON t FOR EACH ROW BEGIN "
                                   "DECLARE CONTINUE HANDLER FOR SQLEXCEPTION BEGIN END; END") == 1235


async def test_writes_in_branches_case_and_local_variables(engine, db):
    await run(engine, db, "CREATE TRIGGER t_ai AFTER INSERT ON t FOR EACH ROW BEGIN "
                          "DECLARE n INT DEFAULT 0; DECLARE tag VARCHAR(6); "
                          "SELECT COUNT(*) INTO n FROM u WHERE a = NEW.a; "
                          "CASE WHEN n > 0 THEN UPDATE u SET s = 'dup' WHERE a = NEW.a; "
                          "WHEN NEW.a > 10 THEN SET tag = 'bigger'; INSERT INTO u VALUES (NEW.id, NEW.a, tag); "
                          "ELSE INSERT INTO u (id, a) SELECT NEW.id, NEW.a FROM DUAL; END CASE; END")
    await run(engine, db, "INSERT INTO t (id, a) VALUES (1, 5), (2, 5), (3, 20)")
    assert await rows(engine, db, "SELECT * FROM u ORDER BY id") == [(1, 5, "dup"), (3, 20, "bigger")]
    # a simple CASE without ELSE that no WHEN matches: 1339, the statement undone
    await run(engine, db, "CREATE TRIGGER t_bd BEFORE DELETE ON t FOR EACH ROW "
                          "CASE OLD.a WHEN 5 THEN DELETE FROM u WHERE id = OLD.id; END CASE")
    await run(engine, db, "DELETE FROM t WHERE id = 1")
    assert await error(engine, db, "DELETE FROM t") == 1339
    assert await rows(engine, db, "SELECT id FROM t ORDER BY id") == [(2,), (3,)]
    assert await rows(engine, db, "SELECT id FROM u ORDER BY id") == [(3,)]
    # SELECT ... INTO of more than one row: 1172
    await run(engine, db, "CREATE TRIGGER t_bu BEFORE UPDATE ON t FOR EACH ROW BEGIN "
                          "DECLARE k INT; SELECT id INTO k FROM t; END")
    assert await error(engine, db, "UPDATE t SET s = 'x' WHERE id = 2") == 1172


async def test_duplicates_name_their_value(engine, db):
    await run(engine, db, "CREATE TABLE k (id INT PRIMARY KEY, a INT UNIQUE, s VARCHAR(10) UNIQUE)")
    await run(engine, db, "INSERT INTO k VALUES (1, 1, 'x'), (2, 2, 'y'), (3, 3, 'z')")
    for sql, shown in (("UPDATE k SET a = a + 1", "Duplicate entry '2' for key 'a'"),
                       ("UPDATE k SET a = a - 1 WHERE id > 1", "Duplicate entry '1' for key 'a'"),
                       ("UPDATE k SET s = 'Y' WHERE id = 3", "Duplicate entry 'Y' for key 's'")):
        with pytest.raises(SQLError) as e:
            await run(engine, db, sql)
        assert e.value.message == shown
    await run(engine, db, "UPDATE k SET a = a + 10")  # (no row meets another)
    await run(engine, db, "CREATE TRIGGER k_bi BEFORE INSERT ON k FOR EACH ROW SET NEW.s = LEFT(LOWER(NEW.s), 1)")
    with pytest.raises(SQLError) as e:
        await run(engine, db, "INSERT INTO k VALUES (4, 4, 'Zq')")
    assert e.value.message == "Duplicate entry 'z' for key 's'"


def test_compound_body_is_one_statement():
    sql = "CREATE TRIGGER x AFTER INSERT ON t FOR EACH ROW BEGIN DELETE FROM u; DELETE FROM v; END; SELECT 1"
    assert split_statements(sql) == [sql[:-len("; SELECT 1")], "SELECT 1"]


async def test_ids_a_trigger_wrote_move_the_tables_counter(engine, db):
    await run(engine, db, "CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    await run(engine, db, "CREATE TABLE b (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    await run(engine, db, "CREATE TRIGGER a_ai AFTER INSERT ON a FOR EACH ROW INSERT INTO b VALUES (NEW.id * 10, NEW.v)")
    await run(engine, db, "INSERT INTO b (v) VALUES (0)")
    await run(engine, db, "INSERT INTO a (v) VALUES (1), (2)")
    await run(engine, db, "INSERT INTO b (v) VALUES (3)")
    assert await rows(engine, db, "SELECT * FROM b ORDER BY id") == [(1, 0), (10, 1), (20, 2), (21, 3)]
