"""server.users: accounts persisted in the datadir, host matching, authentication."""

from __future__ import annotations

import json

from protocol.auth import native_password_hash, scramble_native_password
from server.users import ALL, REPLICATION_SLAVE, UserStore

SALT = b"abcdefghij0123456789"


def test_root_from_startup_password_and_persistence(tmp_path):
    store = UserStore(tmp_path / "users.json")
    store.ensure_root("secret")
    root = store.authenticate("root", "10.1.2.3", SALT, scramble_native_password("secret", SALT))
    assert root is not None and root.has(ALL) and root.has(REPLICATION_SLAVE)
    assert store.authenticate("root", "127.0.0.1", SALT, scramble_native_password("bad", SALT)) is None
    # a restart with another password replaces it
    store2 = UserStore(tmp_path / "users.json")
    store2.ensure_root("other")
    assert store2.authenticate("root", "127.0.0.1", SALT, scramble_native_password("other", SALT))
    data = json.loads((tmp_path / "users.json").read_text())
    assert data["users"][0]["password"].startswith("*") and "other" not in json.dumps(data)


def test_most_specific_host_wins(tmp_path):
    store = UserStore(tmp_path / "users.json")
    store.create("app", "%", native_password_hash("any"))
    store.create("app", "127.0.0.1", native_password_hash("local"))
    store.create("app", "10.0.%", native_password_hash("net"))
    assert store.match("app", "127.0.0.1").host == "127.0.0.1"
    assert store.match("app", "10.0.0.9").host == "10.0.%"
    assert store.match("app", "192.168.1.1").host == "%"
    assert store.match("nobody", "127.0.0.1") is None


def test_grants_and_show_grants(tmp_path):
    store = UserStore(tmp_path / "users.json")
    acc = store.create("repl", "%", native_password_hash("r"))
    assert acc.grants() == [f"GRANT USAGE ON *.* TO `repl`@`%` IDENTIFIED BY PASSWORD '*{native_password_hash('r').hex().upper()}'"]
    store.grant(acc, {"REPLICATION CLIENT", REPLICATION_SLAVE}, False)
    assert acc.grants()[0].startswith("GRANT REPLICATION SLAVE, BINLOG MONITOR ON *.*")  # REPLICATION CLIENT as MariaDB 10.11 shows it
    assert UserStore(tmp_path / "users.json").get("repl", "%").privileges == {"REPLICATION CLIENT", REPLICATION_SLAVE}
    store.revoke(acc, {"REPLICATION CLIENT"})
    assert acc.privileges == {REPLICATION_SLAVE}
    store.drop("repl", "%")
    assert UserStore(tmp_path / "users.json").get("repl", "%") is None


def test_empty_password(tmp_path):
    store = UserStore(tmp_path / "users.json")
    store.create("anon", "%", b"")
    assert store.authenticate("anon", "1.2.3.4", SALT, b"") is not None
    assert store.authenticate("anon", "1.2.3.4", SALT, scramble_native_password("x", SALT)) is None


def test_database_and_table_levels_persist_and_old_files_still_load(tmp_path):
    path = tmp_path / "users.json"
    # a file written before the lower levels existed: global privileges only
    path.write_text(json.dumps({"users": [{"user": "old", "host": "%", "password": "",
                                           "privileges": ["SELECT"], "grant_option": False}]}))
    store = UserStore(path)
    old = store.get("old", "%")
    assert old.databases == {} and old.tables == {} and old.holds("SELECT", "q", "t")
    acc = store.create("app", "%", b"")
    store.grant(acc, {"SELECT"}, False, "q")
    store.grant(acc, {ALL}, True, "q", "T")  # table names keep no case
    store.grant(acc, {"USAGE"}, False, "p")  # nothing to keep
    again = UserStore(path).get("app", "%")
    assert again.databases == {"q": {"SELECT"}}
    assert again.tables[("q", "t")] >= {"SELECT", "INSERT", "UPDATE", "DELETE", "DROP", "ALTER", "GRANT OPTION"}
    assert again.grants()[1:] == ["GRANT SELECT ON `q`.* TO `app`@`%`",
                                  "GRANT ALL PRIVILEGES ON `q`.`t` TO `app`@`%` WITH GRANT OPTION"]
    assert again.holds("SELECT", "q", "other") and not again.holds("SELECT", "p", "t")
    assert again.holds("DROP", "q", "t") and not again.holds("DROP", "q", "other")
    assert again.sees_database("q") and not again.sees_database("p")
    assert again.sees_table("q", "anything") and not again.sees_table("p", "t")
    assert store.revoke(acc, {"SELECT"}, "q") and acc.databases == {}
    assert not store.revoke(acc, {"SELECT"}, "q")  # no grant there: the caller's 1141
    assert store.revoke(acc, {ALL}, "q", "t") and acc.tables == {("q", "t"): {"GRANT OPTION"}}  # as mysqld
    assert store.revoke(acc, {"GRANT OPTION"}, "q", "t") and acc.tables == {}
    assert UserStore(path).get("app", "%").grants() == ["GRANT USAGE ON *.* TO `app`@`%`"]


def test_database_patterns_apply_as_mysqld_orders_them(tmp_path):
    store = UserStore(tmp_path / "users.json")
    acc = store.create("w", "%", b"")
    store.grant(acc, {"SELECT"}, False, "p%")
    store.grant(acc, {"UPDATE"}, False, "_")  # any one-letter name: more specific than p%
    store.grant(acc, {"INSERT"}, False, "pa%")
    store.grant(acc, {"DELETE"}, False, "my\\_db")  # a literal underscore
    store.grant(acc, {"DROP"}, False, "pab")
    assert acc.database_privileges("p") == {"UPDATE"}
    assert acc.database_privileges("pz") == {"SELECT"}
    assert acc.database_privileges("pax") == {"INSERT"}
    assert acc.database_privileges("pab") == {"DROP"}  # its own entry first
    assert acc.database_privileges("my_db") == {"DELETE"} and acc.database_privileges("myxdb") == set()
    assert acc.database_privileges("P") == {"UPDATE"} and acc.database_privileges("Pz") == set()  # case counts
    assert [line.split(" ON ")[1].split(" TO")[0] for line in acc.grants()[1:]] == [
        "`my\\_db`.*", "`pab`.*", "`_`.*", "`pa%`.*", "`p%`.*"]  # names (no wildcard) first


def test_mysql_user_row_reads_the_access_bits_as_mariadbs_view():
    from server.listener import ServerStats
    from server.users import Account

    account = Account("mon", "%", native_password_hash("pw"), {"PROCESS", "REPLICATION CLIENT"}, require_ssl=True)
    row = account.user_row()
    flags = dict(zip(["Select", "Insert", "Update", "Delete", "Create", "Drop", "Reload", "Shutdown", "Process",
                      "File", "Grant", "References", "Index", "Alter", "Show_db", "Super", "Create_tmp_table",
                      "Lock_tables", "Execute", "Repl_slave", "Repl_client", "Create_view", "Show_view",
                      "Create_routine", "Alter_routine", "Create_user", "Event", "Trigger", "Create_tablespace",
                      "Delete_history"], row[3:33], strict=True))
    assert {name for name, flag in flags.items() if flag == "Y"} == {"Process", "Repl_client"}
    assert row[:3] == ("%", "mon", row[42]) and row[2].startswith("*")  # Password: the native hash
    assert row[33] == "ANY" and row[37:41] == (0, 0, 0, 0) and row[41] == "mysql_native_password"
    assert len(row) == 47
    stats = ServerStats()  # SHOW GLOBAL STATUS counted as mysqld counts it
    stats.count_command("SHOW GLOBAL", "SHOW /* c */ GLOBAL STATUS LIKE 'x'")
    stats.count_command("SHOW SESSION", "show session variables")
    assert stats.com == {"Com_show_status": 1, "Com_show_variables": 1}


def test_routine_level_persists_and_drops_with_its_routine(tmp_path):
    store = UserStore(tmp_path / "users.json")
    acc = store.create("e", "%", b"")
    store.grant_routine(acc, {"EXECUTE"}, False, "rp", "PROCEDURE", "Peek", "root@localhost")
    store.grant_routine(acc, {ALL}, True, "rp", "FUNCTION", "fv", "root@localhost")
    again = UserStore(tmp_path / "users.json").get("e", "%")
    assert again.holds_routine("EXECUTE", "rp", "PROCEDURE", "PEEK")
    assert not again.holds_routine("EXECUTE", "rp", "FUNCTION", "peek")
    assert not again.holds_routine("ALTER ROUTINE", "rp", "PROCEDURE", "peek")
    assert again.holds_routine("GRANT OPTION", "rp", "FUNCTION", "fv")
    assert again.grants()[1:] == ["GRANT EXECUTE ON PROCEDURE `rp`.`peek` TO `e`@`%`",
                                  "GRANT EXECUTE, ALTER ROUTINE ON FUNCTION `rp`.`fv` TO `e`@`%` WITH GRANT OPTION"]
    assert sorted(row[3:7] for row in again.procs_priv_rows()) == [  # (named as the GRANT wrote it)
        ("Peek", "PROCEDURE", "root@localhost", "Execute"),
        ("fv", "FUNCTION", "root@localhost", "Execute,Alter Routine,Grant")]
    store.drop_routine_grants("rp", "PROCEDURE", "PEEK")
    assert UserStore(tmp_path / "users.json").get("e", "%").grants()[1:] == [
        "GRANT EXECUTE, ALTER ROUTINE ON FUNCTION `rp`.`fv` TO `e`@`%` WITH GRANT OPTION"]
