"""engine: MySQL-dialect SQL executed on embedded SQLite (shared by master and slave).

See `engine.core` for the concurrency, group-commit and durability contract.
"""

from engine.core import (
    READ_COMMITTED,
    REPEATABLE_READ,
    CommittedTxn,
    Engine,
    LoggedStatement,
    Result,
    Session,
    StatementContext,
    WriterLock,
)

__all__ = ["READ_COMMITTED", "REPEATABLE_READ", "CommittedTxn", "Engine", "LoggedStatement", "Result", "Session", "StatementContext", "WriterLock"]
