"""engine: MySQL-dialect SQL executed on embedded SQLite (shared by master and slave).

The contract (threads, writer lock, group commit, durability of the meta) is the header of
`engine.core`. In short:

    engine = await Engine.open(datadir, readers=4, synchronous="FULL")
    session = engine.session(connection_id)       # .database, .autocommit, .isolation,
    result = await session.execute(sql, context)  # .found_rows, .user_vars, .last_insert_id
    result.committed                              # CommittedTxn to binlog, or None
    async with engine.writer_lock:                # the committer, after writing the binlog
        await engine.commit_group(meta)           # or: await engine.rollback_group()
    await engine.apply_transaction([(sql, StatementContext, db), ...], meta)   # replicas, recovery
    await engine.apply_transactions([[(sql, ctx, db), ...], ...], meta)      # a batch, one commit
    engine.meta(), engine.schema_metas(), engine.table(db, name), await engine.table_digest(db, name)

Modules: lexer (literal extraction = the shape cache key, tokens), translate (DML/SELECT shapes to
SQLite), catalog (MySQL table definitions), ddl, admin (SHOW/DESCRIBE), infoschema, functions
(MySQL functions registered on every connection), foreign_keys (InnoDB foreign keys as the writer's
TEMP triggers), triggers (CREATE TRIGGER's, as SQLite triggers in the table's file), routines (stored procedures and
functions: kept, shown, their bodies cut into steps for CALL), core (the engine: files, the writer thread, group commit, replicated batches,
planning), session (a client connection's statements), results (the values in and out),
concurrency (the writer lock, the thread lanes), connections (opening SQLite connections,
readers, snapshots), errors (SQLite's and parsers' errors as MySQL's).
"""

from engine.concurrency import WriterLock
from engine.core import Engine
from engine.results import CommittedTxn, LoggedStatement, Result, StatementContext
from engine.session import READ_COMMITTED, REPEATABLE_READ, Session

__all__ = ["READ_COMMITTED", "REPEATABLE_READ", "CommittedTxn", "Engine", "LoggedStatement", "Result",
           "Session", "StatementContext", "WriterLock"]
