"""Which writes MariaDB calls unsafe to binlog as statements: the notes 1592 it gives with
binlog_format=STATEMENT (ours) for a statement it writes to the binlog.

Contract. `unsafe_notes(tokens)` reads an INSERT / REPLACE / UPDATE / DELETE's tokens once, when
the statement's shape is translated (the plan keeps the notes, `Plan.unsafe`), and returns the
messages of the notes MariaDB 10.11 gives, in its order (the order of sql/sql_lex.h's
BINLOG_STMT_UNSAFE_* flags): a LIMIT anywhere in the statement (ORDER BY does not make it safe
there); a system variable other than those a QUERY event carries (any @@global one); a system
function (UUID(), USER(), SYSDATE(), FOUND_ROWS(), GET_LOCK(), ..., RAND() but in an INSERT,
whose seed the binlog carries); INSERT IGNORE ... SELECT; INSERT ... SELECT ... ON DUPLICATE KEY
UPDATE; a table with an AUTO_INCREMENT column written while the statement reads a table (a
subquery's, an INSERT ... SELECT's, a join's: the translator tells); REPLACE ... SELECT;
UPDATE IGNORE; INSERT ... VALUES ... ON DUPLICATE KEY UPDATE into a table of more than one
unique key (the translator counts them). The ... SELECT kinds are a SELECT source's, not a
subquery's in VALUES. The engine session adds them to the statement's warnings only when it
logs the statement (sql_log_bin). CREATE TABLE ... SELECT words its INSERT ... SELECT's notes as
its own and adds `CREATE_SELECT_AUTOINC` (`server.create_select`). Not read: an auto-increment
column not first in a composite key, and LIMIT 0 (MariaDB binlogs no such UPDATE or DELETE).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.lexer import Token
from protocol.errors import ER_BINLOG_UNSAFE_STATEMENT

_LIMIT = "The statement is unsafe because it uses a LIMIT clause. This is unsafe because the set of rows included cannot be predicted"
_SYSTEM_VARIABLE = "Statement is unsafe because it uses a system variable that may have a different value on the slave"
_SYSTEM_FUNCTION = "Statement is unsafe because it uses a system function that may return a different value on the slave"
_ORDER = "This order cannot be predicted and may differ on master and the slave"
_INSERT_IGNORE_SELECT = ("INSERT IGNORE... SELECT is unsafe because the order in which rows are retrieved by the "
                         f"SELECT determines which (if any) rows are ignored. {_ORDER}")
_INSERT_SELECT_UPDATE = ("INSERT... SELECT... ON DUPLICATE KEY UPDATE is unsafe because the order in which rows are "
                         f"retrieved by the SELECT determines which (if any) rows are updated. {_ORDER}")
_WRITE_AUTOINC_SELECT = ("Statements writing to a table with an auto-increment column after selecting from another "
                         "table are unsafe because the order in which rows are retrieved determines what (if any) rows "
                         f"will be written. {_ORDER}")
_REPLACE_SELECT = ("REPLACE... SELECT is unsafe because the order in which rows are retrieved by the SELECT "
                   f"determines which (if any) rows are replaced. {_ORDER}")
_INSERT_TWO_KEYS = "INSERT... ON DUPLICATE KEY UPDATE  on a table with more than one UNIQUE KEY is unsafe"
_UPDATE_IGNORE = ("UPDATE IGNORE is unsafe because the order in which rows are updated determines which (if any) "
                  f"rows are ignored. {_ORDER}")

# the session variables a QUERY event carries (or a replica takes from its context), which a
# statement may read safely; every other one, and any @@global one, is unsafe
_SAFE_VARIABLES = frozenset({
    "auto_increment_increment", "auto_increment_offset", "character_set_client", "character_set_connection",
    "character_set_database", "character_set_server", "collation_connection", "collation_database",
    "collation_server", "explicit_defaults_for_timestamp", "foreign_key_checks", "identity", "last_insert_id",
    "lc_time_names", "pseudo_thread_id", "rand_seed1", "rand_seed2", "sql_auto_is_null", "time_zone",
    "timestamp", "unique_checks",
})
_SYSTEM_FUNCTIONS = frozenset({
    "UUID", "UUID_SHORT", "SYS_GUID", "USER", "CURRENT_USER", "SESSION_USER", "SYSTEM_USER", "CURRENT_ROLE",
    "SYSDATE", "VERSION", "FOUND_ROWS", "ROW_COUNT", "GET_LOCK", "RELEASE_LOCK", "RELEASE_ALL_LOCKS",
    "IS_FREE_LOCK", "IS_USED_LOCK", "SLEEP", "MASTER_POS_WAIT", "MASTER_GTID_WAIT", "LOAD_FILE",
})
_NILADIC = frozenset({"CURRENT_USER", "CURRENT_ROLE"})  # functions also written without parentheses
_MODIFIERS = frozenset({"LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY", "QUICK"})


def unsafe_notes(tokens: Sequence[Token], unique_keys: int = 0, *, selects: bool = False,
                 autoinc_select: bool = False) -> tuple[str, ...]:
    """The messages of the notes 1592 MariaDB gives for the write `tokens` (see the header);
    `unique_keys`: the target table's (its primary key counted), an INSERT ... VALUES ... ON
    DUPLICATE KEY UPDATE's note where it has more than one; `selects`: an INSERT / REPLACE ...
    SELECT (a subquery in VALUES is none); `autoinc_select`: a table with an AUTO_INCREMENT
    column written while the statement reads a table."""
    if not tokens:
        return ()
    verb = tokens[0].upper if tokens[0].kind == "word" else ""
    k = 1
    while k < len(tokens) and tokens[k].kind == "word" and tokens[k].upper in _MODIFIERS:
        k += 1
    ignore = k < len(tokens) and tokens[k].is_word("IGNORE")
    limit = upsert = variable = function = False
    for n, tok in enumerate(tokens):
        if tok.kind == "sysvar":
            variable = variable or _unsafe_variable(tok.text)
        elif tok.kind == "word":
            word = tok.upper
            call = n + 1 < len(tokens) and tokens[n + 1].kind == "op" and tokens[n + 1].text == "("
            if word == "LIMIT":
                limit = True
            elif word == "DUPLICATE" and tokens[n - 1].is_word("ON"):
                upsert = True
            elif word in _SYSTEM_FUNCTIONS and (call or word in _NILADIC) or word == "RAND" and call and verb != "INSERT":
                function = True
    notes = [_LIMIT] if limit else []
    notes += [_SYSTEM_VARIABLE] if variable else []
    notes += [_SYSTEM_FUNCTION] if function else []
    if selects and verb == "INSERT":
        notes += [_INSERT_IGNORE_SELECT] if ignore else []
        notes += [_INSERT_SELECT_UPDATE] if upsert else []
    notes += [_WRITE_AUTOINC_SELECT] if autoinc_select else []
    notes += [_REPLACE_SELECT] if selects and verb == "REPLACE" else []
    notes += [_UPDATE_IGNORE] if ignore and verb == "UPDATE" else []
    notes += [_INSERT_TWO_KEYS] if upsert and unique_keys > 1 and not selects else []
    return tuple(ER_BINLOG_UNSAFE_STATEMENT.format(note) for note in notes)


# CREATE TABLE ... SELECT into a table with an AUTO_INCREMENT column: the note MariaDB gives last
CREATE_SELECT_AUTOINC = ER_BINLOG_UNSAFE_STATEMENT.format(
    "CREATE TABLE... SELECT...  on a table with an auto-increment column is unsafe because the order in which "
    f"rows are retrieved by the SELECT determines which (if any) rows are inserted. {_ORDER}")


def _unsafe_variable(text: str) -> bool:
    """Whether reading the system variable `text` (@@name, @@session.name, @@global.name) is
    unsafe to binlog as a statement."""
    scope, _, name = text[2:].rpartition(".")
    return scope.lower() == "global" or name.lower() not in _SAFE_VARIABLES
