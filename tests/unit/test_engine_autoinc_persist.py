"""The AUTO_INCREMENT counters the engine keeps in each schema file (`engine.core`'s header,
`AUTOINC_TABLE`): a table counts on past the largest id its rows took after a close and reopen
and after a crash right after a group commit (the files copied as the crash leaves them), not
from MAX(id) + 1; a rolled-back group's ids are not kept; TRUNCATE, DROP and ALTER TABLE ...
AUTO_INCREMENT = n start the counter again, RENAME carries it
(tests/integration/test_autoinc_restart_mariadb.py compares them with MariaDB's)."""

from __future__ import annotations

import shutil

from engine import Engine


async def run(engine: Engine, *statements: str, commit: bool = True) -> list:
    session = engine.session(1)
    session.database = "d"
    try:
        results = [await session.execute(sql) for sql in statements]
    finally:
        await session.close()
    if commit:
        async with engine.writer_lock:
            await engine.commit_group({})
    return results


async def next_ids(engine: Engine, *tables: str) -> list[int]:
    """Each table's id of a new row (SHOW CREATE TABLE's AUTO_INCREMENT= and TABLES' first)."""
    shown = []
    for table in tables:
        (create,) = await run(engine, f"SHOW CREATE TABLE {table}", commit=False)
        (listed,) = await run(engine, f"SELECT AUTO_INCREMENT FROM information_schema.TABLES "
                                      f"WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = '{table}'", commit=False)
        (inserted,) = await run(engine, f"INSERT INTO {table} (id) VALUES (NULL)")
        text = create.rows[0][1]
        counter = int(text.split("AUTO_INCREMENT=")[1].split()[0]) if "AUTO_INCREMENT=" in text else 1
        assert counter == listed.rows[0][0] == inserted.last_insert_id, (table, text, listed.rows)
        shown.append(inserted.last_insert_id)
    return shown


SETUP = [
    "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)",
    "INSERT INTO t (v) VALUES (1), (2), (3)",
    "DELETE FROM t WHERE id = 3",
    "CREATE TABLE up (id INT AUTO_INCREMENT PRIMARY KEY, v INT)",
    "INSERT INTO up (v) VALUES (1), (2)",
    "UPDATE up SET id = 50 WHERE id = 2",
    "DELETE FROM up WHERE id = 50",
    "CREATE TABLE sel (id INT AUTO_INCREMENT PRIMARY KEY, v INT)",
    "INSERT INTO sel (v) SELECT v FROM t UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9",
    "DELETE FROM sel WHERE id > 3",
    "CREATE TABLE alt (id INT AUTO_INCREMENT PRIMARY KEY, v INT)",
    "INSERT INTO alt VALUES (0, 1), (0, 2), (300, 3)",
    "DELETE FROM alt WHERE id = 300",
    "ALTER TABLE alt AUTO_INCREMENT = 120",
    "CREATE TABLE tr (id INT AUTO_INCREMENT PRIMARY KEY, v INT)",
    "INSERT INTO tr (v) VALUES (1), (2)",
    "TRUNCATE TABLE tr",
    "CREATE TABLE ren (id INT AUTO_INCREMENT PRIMARY KEY, v INT)",
    "INSERT INTO ren (v) VALUES (1), (2), (3), (4)",
    "DELETE FROM ren WHERE id = 4",
    "RENAME TABLE ren TO ren2",
]
TABLES = ("t", "up", "sel", "alt", "tr", "ren2")
# MariaDB's next ids for these (innodb.autoinc_persist's scenarios): an UPDATE raising an id to
# 50 keeps 51 (InnoDB's update_row); the INSERT ... SELECT's 5 rows took 1..5 of the ids it
# reserved (1 + 2 + 4), of which a restart keeps 5
AFTER_RESTART = [4, 52, 6, 120, 1, 5]


async def made(tmp_path) -> Engine:
    engine = await Engine.open(tmp_path / "data", readers=1)
    setup = engine.session(0)
    await setup.execute("CREATE DATABASE d")
    await setup.close()
    await run(engine, *SETUP)
    return engine


async def test_counters_survive_a_close_and_reopen(tmp_path):
    engine = await made(tmp_path)
    await engine.close()
    engine = await Engine.open(tmp_path / "data", readers=1)
    try:
        assert await next_ids(engine, *TABLES) == AFTER_RESTART
    finally:
        await engine.close()


async def test_counters_are_as_durable_as_the_rows_they_cover(tmp_path):
    """The files copied right after the group commits, as a crash (kill -9) leaves them: no id
    handed out before the crash is handed out again."""
    engine = await made(tmp_path)
    try:
        crashed = tmp_path / "crashed"
        shutil.copytree(tmp_path / "data", crashed, ignore=shutil.ignore_patterns("*-shm"))
    finally:
        await engine.close()
    engine = await Engine.open(crashed, readers=1)
    try:
        assert await next_ids(engine, *TABLES) == AFTER_RESTART
    finally:
        await engine.close()


async def test_ids_of_rolled_back_statements_are_kept_by_the_next_commit_or_a_close(tmp_path):
    """As InnoDB (innodb.autoinc_persist scenario 10): a rolled-back transaction's ids are not
    handed out again after a restart, once a later commit or a clean close wrote its file."""
    for crash in (False, True):
        data = tmp_path / f"data{int(crash)}"
        engine = await Engine.open(data, readers=1)
        setup = engine.session(0)
        await setup.execute("CREATE DATABASE d")
        await setup.close()
        await run(engine, "CREATE TABLE rb (id INT AUTO_INCREMENT PRIMARY KEY)", "CREATE TABLE other (id INT)",
                  "INSERT INTO rb VALUES (0), (0)")
        await run(engine, "BEGIN", "INSERT INTO rb VALUES (0), (0)", "ROLLBACK", commit=False)
        if crash:
            await run(engine, "INSERT INTO other VALUES (1)")
            shutil.copytree(data, tmp_path / "crashed", ignore=shutil.ignore_patterns("*-shm"))
            data = tmp_path / "crashed"
        await engine.close()
        engine = await Engine.open(data, readers=1)
        try:
            assert await next_ids(engine, "rb") == [5]
        finally:
            await engine.close()


async def test_a_rolled_back_group_leaves_the_committed_counters(tmp_path):
    engine = await made(tmp_path)
    try:
        session = engine.session(1)
        session.database = "d"
        await session.execute("INSERT INTO t (v) VALUES (9)")  # id 4, never group-committed
        async with engine.writer_lock:
            await engine.rollback_group()
        await session.close()
        assert await next_ids(engine, "t") == [4]
    finally:
        await engine.close()


async def test_a_group_of_inserts_leaves_its_ids_to_the_rows_a_later_delete_writes_them(tmp_path):
    """A group whose statements are INSERTs that wrote all their rows does not write the counter
    (MAX + 1 finds its ids at open); the group deleting the last row does: crash images after
    each still count on past every id handed out."""
    engine = await Engine.open(tmp_path / "data", readers=1)
    setup = engine.session(0)
    await setup.execute("CREATE DATABASE d")
    await setup.close()
    await run(engine, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT)")
    images = []
    try:
        for n, statements in enumerate((["INSERT INTO t (v) VALUES (1), (2), (3)"], ["DELETE FROM t WHERE id = 3"],
                                        ["INSERT INTO t (v) VALUES (4)", "INSERT INTO t (v) VALUES (5)"],
                                        ["DELETE FROM t WHERE id >= 4"])):
            await run(engine, *statements)
            images.append(tmp_path / f"crash{n}")
            shutil.copytree(tmp_path / "data", images[-1], ignore=shutil.ignore_patterns("*-shm"))
    finally:
        await engine.close()
    found = []
    for image in images:
        engine = await Engine.open(image, readers=1)
        try:
            found += await next_ids(engine, "t")
        finally:
            await engine.close()
    assert found == [4, 4, 6, 6]
