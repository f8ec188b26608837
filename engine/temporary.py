"""Temporary tables: each session's own, kept as ordinary tables under hidden names.

A CREATE TEMPORARY TABLE `t` of a session makes the table `#sql-temporary-<owner>-t` in the
same database: an ordinary table of the catalog (its columns, keys, SQLite table and indexes),
written through the writer as any other. `<owner>` is the session's `Session.temporary_owner`:
unique among the engine's sessions (a client's connection id, a replicated master thread's id
on a replica's applier) and among the engine's opens (a random token taken at open), so that no
two sessions, and no session after a restart, share one; a replicated thread's owner holds its
master's server_id too (`replicated_owner`: a failover's new master reuses thread ids). The
rules (MariaDB's):
- the session resolves a table name to its temporary table first (`Session.temporary`): SELECT,
  INSERT, UPDATE, DELETE, ALTER, TRUNCATE, DROP, RENAME, SHOW CREATE TABLE and DESCRIBE find it before
  a base table of the same name, which CREATE TABLE may still make and which other sessions see;
- no other session resolves to it, and nothing lists it (SHOW TABLES, information_schema);
- DROP TEMPORARY TABLE drops temporary tables only (1051 for another name);
- the session's end (disconnect, KILL, COM_CHANGE_USER, COM_RESET_CONNECTION) drops them with
  `DROP /*!40005 TEMPORARY */ TABLE IF EXISTS ...` (`drop_statement`) per database, the newest
  first, binlogged with the session's thread id as MariaDB 10.11 logs it, so a
  replica that keeps them per master thread drops them too; a restart leaves them nobody's (the
  next open's owners differ), and the next open drops them (`Engine.drop_left_temporary`), or,
  on a master, crash recovery after its replay (`Engine.open(keep_left_temporary=True)`);
- a replica's applier ends every replicated thread's tables when the master started again (the
  FORMAT_DESCRIPTION of its first binlog has its creation time set; a rotation's has 0) and at a
  CHANGE MASTER / RESET SLAVE that starts the relay log over (`Engine.drop_replicated_temporary`),
  binlogging nothing, as MariaDB's Relay_log_info::close_temporary_tables;
- a replay of our own binlog resolves each statement's names to the temporary tables of the
  session that ran it (`Engine.replay_owner` from the Query event's thread id): a failed group
  commit's replay to the live session's, crash recovery's to the ones the crashed open left,
  in the state the group expects (the engine stands at the group before it).
- a DROP of temporary tables only is binlogged as MariaDB builds it (`drop_logged`), and not at
  all when DROP TEMPORARY TABLE IF EXISTS drops none; a foreign key in one is InnoDB's 1005
  (errno 150), and CREATE TEMPORARY TABLE ... LIKE leaves the source's out; a replica that
  binlogs replicated statements (log_slave_updates) writes them with their master thread's id
  (`LoggedStatement.thread_id`), so that its own replicas keep the tables per thread too;
- CREATE / DROP TEMPORARY TABLE inside a transaction commit nothing (`keeps_transaction`): the
  statement joins the transaction and its binlog group; a rollback of the transaction (or to a
  savepoint before it) leaves the table made (empty) or dropped, and binlogs the transaction
  with its statements and ROLLBACK in place of XID, which a replica runs: the temporary tables
  stay, the rest is undone (`Session._ddl_kept`, `Engine._w_keep_temporary`).
Not kept (MariaDB's are): a torn multi-file commit's redo record (`_rerun_torn`) runs its
statements without the sessions' temporary tables.
"""

from __future__ import annotations

import re

from engine.lexer import mysql_ident

PREFIX = "#sql-temporary-"

_KEEPS_TRANSACTION = re.compile(r"\s*(?:CREATE|DROP)\s+TEMPORARY\s", re.I)


def keeps_transaction(sql: str) -> bool:
    """Is `sql` a CREATE / DROP TEMPORARY TABLE, which MariaDB runs inside the open transaction
    (no implicit commit) and which a rollback of it does not undo?"""
    return _KEEPS_TRANSACTION.match(sql) is not None


def stored_name(owner: str, name: str) -> str:
    """The catalog's (and SQLite's) name of `owner`'s temporary table `name`."""
    return f"{PREFIX}{owner}-{name}"


TOKEN_BYTES = 4  # an open's token: this many random bytes in hex, the first part of every owner


def client_owner(open_token: str, connection_id: int) -> str:
    """The owner of a client session's temporary tables."""
    return f"{open_token}c{connection_id}"


def replicated_owner(open_token: str, server_id: int, thread_id: int) -> str:
    """The owner of the temporary tables a replica's applier makes for the master thread
    `thread_id` of the server `server_id` (MariaDB's key: the event's server_id and thread id)."""
    return f"{open_token}r{server_id}t{thread_id}"


def open_token_of(owner: str) -> str:
    """The token of the open whose session owned `owner`'s tables."""
    return owner[:2 * TOKEN_BYTES]


def is_temporary(name: str) -> bool:
    """Is `name` a temporary table's stored name (never listed)?"""
    return name.startswith(PREFIX)


def owner_of(name: str) -> str | None:
    """The owner part of a stored name (None: a base table's name)."""
    if not is_temporary(name):
        return None
    return name[len(PREFIX):].partition("-")[0]


def shown_name(name: str) -> str:
    """The name the session wrote for the temporary table stored as `name` (`name` itself for a
    base table)."""
    if not is_temporary(name):
        return name
    return name[len(PREFIX):].partition("-")[2]


DROP_PREFIX = "DROP /*!40005 TEMPORARY */ TABLE IF EXISTS "


def drop_statement(names: list[str]) -> str:
    """MariaDB 10.11's statement that ends a session's temporary tables `names` of one database,
    run (and binlogged, as written) in that database, as its THD::log_events_and_free_tmp_shares
    writes it."""
    return DROP_PREFIX + ",".join(mysql_ident(name) for name in names)


def drop_logged(dropped: list[tuple[str, str]], if_exists: bool, database: str | None) -> tuple[str, bool]:
    """What MariaDB 10.11 binlogs for a DROP [TEMPORARY] TABLE that dropped the temporary tables
    `dropped` ((schema, stored name)) and nothing else, as its mysql_rm_table_no_locks builds it,
    and whether it is binlogged without a default database: with IF EXISTS every name qualified
    and none; without, a name qualified where its database is not `database`."""
    bare = if_exists
    names = ",".join((f"{mysql_ident(schema)}." if bare or schema != database else "") + mysql_ident(shown_name(name))
                     for schema, name in dropped)
    return f"DROP TEMPORARY TABLE {'IF EXISTS ' if if_exists else ''}{names} /* generated by server */", bare
