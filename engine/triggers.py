"""MySQL triggers (CREATE / DROP TRIGGER) as SQLite triggers in the table's own database file.

The catalog keeps each `Trigger` as MySQL wrote it (its body's text, definer, order, sql_mode)
under `TRIGGER_PREFIX + name` in the schema's `__engine_catalog`, as views are kept. What fires is
SQLite's: every (table, timing, event) gets one SQLite trigger, `__trg_<n>`, whose body is its
MySQL triggers' statements in ACTION_ORDER, each translated once by the engine's planner with
`NEW.col` / `OLD.col` read from SQLite's row and every literal written in. They are made again
from the catalog inside the writer's transaction after every DDL of the schema
(`install_sql`), so an ALTER TABLE's rebuild, a RENAME or a DROP never leaves a stale one. A
non-TEMP SQLite trigger names only its own file's tables: a body writing another database's
table, or needing what the writer does beside SQLite (ids handed out by `autoinc`, a multi-table
write, INSERT IGNORE's rows apart, the statement's microseconds, variables), is refused with 1235 at
CREATE. The statement's time (NOW(), a DEFAULT CURRENT_TIMESTAMP ...) is the firing write's,
`__trg_time`. SQLite's BEFORE triggers cannot assign NEW: the BEFORE triggers of a (table, event)
any of which does `SET NEW.col = expr` run at the start of its AFTER trigger instead, each SET an
UPDATE of the row just written (`__trg_hold` keeps the table's triggers from firing for it), NEW.col
read from the row as stored; the binlog keeps the firing statement, whose triggers a replica runs.
A body's IF ... THEN ... [ELSEIF ...] [ELSE ...] END IF and CASE statement (`body_steps`) choose
their branch once per row, kept by `__trg_branch`; the statements inside run where it holds (a
write's rows or WHERE joined to that condition, `_guarded`); a CASE without ELSE that no WHEN
matches is MariaDB's 1339. DECLAREd local variables are kept by `__trg_var` (`_local_sql`: DECLARE
... DEFAULT, SET, SELECT ... INTO, each value as a variable of its type holds it), read where the
body names them (loops, labels, handlers, cursors: 1235). SIGNAL is `signal_error`'s SQLError,
raised as SQLite's RAISE(ABORT) with its code and SQLSTATE, which undoes the statement.

A body that names a table or column that is no longer there (MariaDB checks them when the trigger
fires) becomes a SQLite trigger that raises that error when it fires; so does a trigger whose
statements would update the table whose statement fired it through other triggers, and a
statement of it that writes that table directly, where it runs (MariaDB's 1442). Errors cross SQLite as `<code>|<message>` (`errors.map_sqlite_error`).

Every SQLite trigger fires only while `__trg_on()` is true (`TriggerSwitch`): the writer's
statements; a replica's applier runs the master's statements again and the triggers with them,
as MariaDB's statement-format replication does.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from decimal import Decimal

from engine import fixedbin, routines, values
from engine.catalog import INT_TYPES, NUMERIC_TYPES, REAL_TYPES, Table, sql_literal
from engine.lexer import (
    Hybrid,
    extract,
    literal_texts,
    mysql_ident,
    quote_ident,
    syntax_error,
    tokenize,
)
from engine.translate import (
    CURDATE,
    CURTIME,
    FIXEDBIN,
    NOW,
    STORE,
    TYPED,
    UNIX_NOW,
    Plan,
)
from protocol.errors import (
    ER_BAD_FIELD_ERROR,
    ER_BINLOG_UNSAFE_STATEMENT,
    ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG,
    ER_NO_SUCH_TABLE,
    ER_NOT_SUPPORTED_YET,
    ER_SIGNAL_EXCEPTION,
    ER_SP_BAD_SQLSTATE,
    ER_SP_CASE_NOT_FOUND,
    ER_TOO_MANY_ROWS,
    ER_TRG_CANT_CHANGE_ROW,
    ER_TRG_NO_SUCH_ROW_IN_TRG,
    MySQLError,
    SQLError,
)

TRIGGER_PREFIX = "\x00trigger:"  # catalog keys of triggers: never a table name
_SQLITE_PREFIX = "__trg_"
# what a body's statement may name that is not yet there: made a trigger that fails when it fires
_LATE_ERRORS = frozenset({ER_NO_SUCH_TABLE.code, ER_BAD_FIELD_ERROR.code})


@dataclass
class Trigger:
    schema: str
    name: str
    table: str
    timing: str  # BEFORE | AFTER
    event: str  # INSERT | UPDATE | DELETE
    body: str  # the statement after FOR EACH ROW [FOLLOWS | PRECEDES x], as written
    written: str  # the text from the word TRIGGER on, as written, without FOLLOWS / PRECEDES
    definer: str = "`root`@`localhost`"
    order: int = 1  # ACTION_ORDER among the table's triggers of its timing and event
    created: float = 0.0
    sql_mode: str = ""

    def to_json(self) -> str:
        return json.dumps({"trigger": asdict(self)})

    @staticmethod
    def from_json(text: str) -> Trigger:
        return Trigger(**json.loads(text)["trigger"])

    def show_create(self) -> str:
        """SHOW CREATE TRIGGER's "SQL Original Statement", as MariaDB keeps it."""
        return f"CREATE DEFINER={self.definer} {self.written}"

    def created_text(self) -> str:
        """CREATED as MariaDB shows it: a DATETIME(2) in the server's time zone."""
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.created)) + f".{int(self.created * 100) % 100:02d}"

    def show_row(self, collation: str) -> tuple:
        """SHOW TRIGGERS' row (`collation`: its database's)."""
        return (self.name, self.event, self.table, self.body, self.timing, self.created_text(), self.sql_mode,
                self.definer.replace("`", ""), "utf8mb4", "utf8mb4_general_ci", collation)

    def schema_row(self, collation: str) -> tuple:
        """information_schema.TRIGGERS' row (`collation`: its database's)."""
        return ("def", self.schema, self.name, self.event, "def", self.schema, self.table, self.order, None,
                self.body, "ROW", self.timing, None, None, "OLD", "NEW", self.created_text(), self.sql_mode,
                self.definer.replace("`", ""), "utf8mb4", "utf8mb4_general_ci", collation)


def ordered(triggers: Iterable[Trigger]) -> list[Trigger]:
    """Triggers as MariaDB lists them: by table, event, timing, then ACTION_ORDER."""
    events = {"INSERT": 0, "UPDATE": 1, "DELETE": 2}
    return sorted(triggers, key=lambda t: (t.table.lower(), events[t.event], t.timing != "BEFORE", t.order))


class TriggerSwitch:
    """`__trg_on()` on the writer connection: whether user triggers fire now; `__trg_time(k)`:
    the firing statement's time (its NOW(), CURDATE(), CURTIME(), UNIX_TIMESTAMP(), as the
    session's arguments give them: a replica's is the master's)."""

    def __init__(self) -> None:
        self.enabled = True
        self.time = 0  # the running write's timestamp (`Engine._w_write`)
        self.used: frozenset[str] = frozenset()  # its `Plan.trigger_reads`
        self.held = False  # a BEFORE trigger's `SET NEW.col` writing its row (`_assignment_sql`)
        self.branches: dict[str, int] = {}  # each IF's branch taken for the row (`_choice_sql`)
        self.locals: dict[str, object] = {}  # the bodies' local variables (`_local_sql`)

    def register(self, conn: sqlite3.Connection) -> None:
        """On the writer (after `register_idle`, which it replaces)."""
        conn.create_function("__trg_on", 0, lambda: 1 if self.enabled and not self.held else 0)
        conn.create_function("__trg_hold", 1, self._hold)
        conn.create_function("__trg_branch", -1, self._branch)
        conn.create_function("__trg_var", -1, self._var)
        conn.create_function("__trg_unmarked", 2, _unmarked)
        conn.create_function("__trg_time", 1, self._time)
        conn.create_function("__trg_used", 1, lambda name: 1 if name in self.used else 0)

    def _branch(self, name: str, taken: int | None = None) -> int | None:
        if taken is not None:
            self.branches[name] = taken
        return self.branches.get(name)

    def _var(self, name: str, *value: object) -> object:
        if value:
            self.locals[name] = value[0]
        return self.locals.get(name)

    def _hold(self, held: int) -> None:
        self.held = bool(held)

    def _time(self, kind: int) -> str | int:
        if kind == 3:
            return self.time
        return datetime.fromtimestamp(self.time, tz=UTC).strftime(_TIME_FORMATS[kind])


def register_idle(conn: sqlite3.Connection) -> None:
    """The trigger functions on a connection that never fires a trigger (a reader: compiling a
    write there, as `Session.access` does, reads the file's triggers, which name them)."""
    conn.create_function("__trg_on", 0, lambda: 0)
    conn.create_function("__trg_time", 1, lambda kind: None)
    conn.create_function("__trg_used", 1, lambda name: 0)
    conn.create_function("__trg_hold", 1, lambda held: None)
    conn.create_function("__trg_branch", -1, lambda *args: None)
    conn.create_function("__trg_var", -1, lambda *args: None)
    conn.create_function("__trg_unmarked", 2, _unmarked)


def _unmarked(value: object, changed: object) -> object:
    """A body's upsert's `mysql_upsert_mark(value, changed)`: the value, its row not counted."""
    return value


_TIME_FORMATS = ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d", "%H:%M:%S")
# the statement's time in a body: `TriggerSwitch._time`'s kinds
_TIME_SOURCES = {NOW: 0, CURDATE: 1, CURTIME: 2, UNIX_NOW: 3}


@dataclass(frozen=True)
class Step:
    """One statement of a body with the IF branches it runs under (`guard`: (IF number, branch
    number) pairs, outermost first), or an IF's choice of branch (`conditions`: its IF and ELSEIF
    conditions' text, in order; the ELSE branch is number len(conditions) + 1)."""

    statement: str = ""
    guard: tuple[tuple[int, int], ...] = ()
    choice: int = 0  # an IF's number (conditions given), else 0
    conditions: tuple[str, ...] = ()
    # local variables (name, declared type) the step assigns: `statement` the value's expression
    # (DECLARE ... DEFAULT, NULL without one; SET), or a SELECT (`fetch`) whose one row they take
    assigns: tuple[tuple[str, str], ...] = ()
    fetch: bool = False


def body_steps(body: str) -> list[Step]:
    """A body's statements as `Step`s: the one statement, or those of BEGIN ... END with IF ...
    THEN ... [ELSEIF ... THEN ...] [ELSE ...] END IF, CASE statements, nested BEGIN ... END
    blocks, DECLAREd local variables (each name once in the body), their SET and SELECT ... INTO
    (1235 for loops, labels, handlers, cursors and conditions: no loop runs in a SQLite trigger)."""
    shape, literals = extract(body)
    tokens = tokenize(shape)
    if tokens and tokens[0].is_word("IF", "CASE"):
        return body_steps(f"BEGIN {body}; END")
    if not tokens or not tokens[0].is_word("BEGIN"):
        return [Step(body)]
    texts = literal_texts(body)
    texts = texts if len(texts) == len(literals) else []
    before = [0]  # the literals before each token
    for tok in tokens:
        before.append(before[-1] + (tok.kind == "param"))

    def text(i: int, j: int) -> str:  # tokens[i:j] as written
        return _with_literals(shape[tokens[i].start:tokens[j - 1].end], literals[before[i]:before[j]],
                              texts[before[i]:before[j]])

    steps: list[Step] = []
    ifs = [0]
    declared: dict[str, str] = {}  # the locals: lower name -> type

    def local(k: int) -> str | None:  # tokens[k] as a local's name
        tok = tokens[k]
        name = tok.text.strip("`").lower() if tok.kind in ("word", "ident") else ""
        return name if name in declared else None

    def declare(i: int, end: int, guard: tuple[tuple[int, int], ...]) -> None:
        """DECLARE name [, name] ... type [DEFAULT expr] (tokens[i:end]): each name's step."""
        k, names = i + 1, []
        while k < end and tokens[k].kind in ("word", "ident") and not (k + 1 < end and tokens[k + 1].text == "("):
            names.append(tokens[k].text.strip("`"))
            if not (k + 1 < end and tokens[k + 1].text == ","):
                break
            k += 2
        default = next((j for j in range(k + 1, end) if tokens[j].is_word("DEFAULT")), end)
        if not names or k + 1 >= default or tokens[k + 1].is_word("CONDITION", "CURSOR", "HANDLER") \
                or any(name.lower() in declared for name in names):
            raise SQLError(ER_NOT_SUPPORTED_YET, "this DECLARE in a trigger body")
        kind = text(k + 1, default)
        value = text(default + 1, end) if default < end else "NULL"
        for name in names:
            declared[name.lower()] = kind
            steps.append(Step(value, guard, assigns=((name, kind),)))

    def assign(i: int, end: int, guard: tuple[tuple[int, int], ...]) -> None:
        """SET local = expr [, local = expr] ... (tokens[i:end]): a step each, in order."""
        k = i + 1
        while k < end:
            name = local(k)
            if name is None or k + 1 >= end or tokens[k + 1].text not in ("=", ":="):
                raise SQLError(ER_NOT_SUPPORTED_YET, "SET of a variable in a trigger")
            stop, depth = k + 2, 0
            while stop < end and not (depth == 0 and tokens[stop].text == ","):
                depth += (tokens[stop].text == "(") - (tokens[stop].text == ")")
                stop += 1
            steps.append(Step(text(k + 2, stop), guard, assigns=((name, declared[name]),)))
            k = stop + 1

    def fetch(i: int, end: int, guard: tuple[tuple[int, int], ...]) -> bool:
        """SELECT ... INTO local [, local] ... (tokens[i:end]) as a step; False: no such INTO."""
        depth, into = 0, None
        for k in range(i, end):
            depth += (tokens[k].text == "(") - (tokens[k].text == ")")
            if depth == 0 and tokens[k].is_word("INTO"):
                into = k
        if into is None or local(into + 1) is None:
            return False
        k, names = into + 1, [local(into + 1)]
        while k + 2 < end and tokens[k + 1].text == ",":
            k += 2
            names.append(local(k))
        if None in names:
            raise SQLError(ER_NOT_SUPPORTED_YET, "SELECT ... INTO other than local variables in a trigger")
        select = text(i, into) + (" " + text(k + 1, end) if k + 1 < end else "")
        steps.append(Step(select, guard, assigns=tuple((name, declared[name]) for name in names), fetch=True))
        return True

    def until(i: int, stops: tuple[str, ...]) -> int:  # the first of `stops` outside parentheses and CASE
        depth = 0
        while i < len(tokens):
            tok = tokens[i]
            if depth == 0 and (tok.is_word(*stops) or tok.text == ";" and ";" in stops):
                return i
            if tok.text == "(" or tok.is_word("CASE"):
                depth += 1
            elif tok.text == ")" or tok.is_word("END") and depth:
                depth -= 1
            i += 1
        raise syntax_error("")

    def case(i: int, guard: tuple[tuple[int, int], ...]) -> int:
        """CASE [value] WHEN ... THEN ... [WHEN ...] [ELSE ...] END CASE at tokens[i]: an IF
        whose conditions are the WHENs (`(value) = (when)` for a simple CASE), its ELSE branch
        without one MariaDB's 1339, as a SIGNAL of it; the index after END CASE."""
        ifs[0] += 1
        number, conditions = ifs[0], []
        at = len(steps)
        steps.append(Step())
        when = until(i + 1, ("WHEN",))
        value = text(i + 1, when) if when > i + 1 else ""
        i = when
        while tokens[i].is_word("WHEN"):
            then = until(i + 1, ("THEN",))
            conditions.append(f"({value}) = ({text(i + 1, then)})" if value else text(i + 1, then))
            i = block(then + 1, (*guard, (number, len(conditions))), ("WHEN", "ELSE", "END"))
        otherwise = (*guard, (number, len(conditions) + 1))
        if tokens[i].is_word("ELSE"):
            i = block(i + 1, otherwise, ("END",))
        else:
            steps.append(Step(_CASE_NOT_FOUND, otherwise))
        if not conditions or not (i + 1 < len(tokens) and tokens[i + 1].is_word("CASE")):
            raise syntax_error(tokens[i].text)
        steps[at] = Step(guard=guard, choice=number, conditions=tuple(conditions))
        return i + 2

    def block(i: int, guard: tuple[tuple[int, int], ...], ends: tuple[str, ...]) -> int:
        while not tokens[i].is_word(*ends):
            tok = tokens[i]
            if tok.text == ";":
                i += 1
            elif tok.is_word("BEGIN"):
                i = block(i + 1, guard, ("END",)) + 1
            elif tok.is_word("IF"):
                ifs[0] += 1
                number, conditions, branch = ifs[0], [], 0
                at = len(steps)
                steps.append(Step())
                while tokens[i].is_word("IF", "ELSEIF", "ELSE"):
                    branch += 1
                    if tokens[i].is_word("ELSE"):
                        i = block(i + 1, (*guard, (number, branch)), ("END",))
                        break
                    then = until(i + 1, ("THEN",))
                    conditions.append(text(i + 1, then))
                    i = block(then + 1, (*guard, (number, branch)), ("ELSEIF", "ELSE", "END"))
                if not (i + 1 < len(tokens) and tokens[i + 1].is_word("IF")):
                    raise syntax_error(tokens[i].text)
                steps[at] = Step(guard=guard, choice=number, conditions=tuple(conditions))
                i += 2
            elif tok.is_word("CASE"):
                i = case(i, guard)
            elif tok.is_word("WHILE", "LOOP", "REPEAT", "LEAVE", "ITERATE") or (
                    i + 1 < len(tokens) and tokens[i + 1].text == ":"):
                raise SQLError(ER_NOT_SUPPORTED_YET, "loops or labels in a trigger body")
            else:
                end = until(i, (";", *ends))
                if tok.is_word("DECLARE"):
                    declare(i, end, guard)
                elif tok.is_word("SET") and i + 1 < end and local(i + 1) is not None:
                    assign(i, end, guard)
                elif not (tok.is_word("SELECT") and fetch(i, end, guard)):
                    steps.append(Step(text(i, end), guard))
                i = end
            if i >= len(tokens):
                raise syntax_error("")
        return i

    if block(1, (), ("END",)) != len(tokens) - 1:
        raise syntax_error(tokens[-1].text)
    return steps


# a CASE statement's ELSE where it has none: MariaDB's 1339 when no WHEN holds
_CASE_NOT_FOUND = (f"SIGNAL SQLSTATE '{ER_SP_CASE_NOT_FOUND.sqlstate}' SET MYSQL_ERRNO = {ER_SP_CASE_NOT_FOUND.code}, "
                   f"MESSAGE_TEXT = '{ER_SP_CASE_NOT_FOUND.template}'")


def split_body(body: str) -> list[str]:
    """A body's statements (`body_steps`, their IF branches aside)."""
    return [step.statement for step in body_steps(body) if not step.choice]


def signal_error(statement: str) -> SQLError | None:
    """`SIGNAL SQLSTATE [VALUE] 'sssss' [SET MESSAGE_TEXT = '...' [, MYSQL_ERRNO = n]]` as the error
    it raises (None: no SIGNAL); 1235 for what is out of reach here (a named condition, a warning's
    or not-found class, a value other than a literal), 1407 for a SQLSTATE that is none."""
    shape, literals = extract(statement)
    tokens = tokenize(shape)
    if not tokens or not tokens[0].is_word("SIGNAL"):
        return None
    k = 2 + (len(tokens) > 2 and tokens[2].is_word("VALUE"))
    if not (len(tokens) > k and tokens[1].is_word("SQLSTATE") and tokens[k].kind == "param"
            and isinstance(literals[tokens[k].param], str)):
        raise SQLError(ER_NOT_SUPPORTED_YET, "SIGNAL of a named condition")
    state = literals[tokens[k].param]
    if len(state) != 5 or not state.isalnum() or state.startswith("00"):
        raise SQLError(ER_SP_BAD_SQLSTATE, state)
    if state.startswith(("01", "02")):
        raise SQLError(ER_NOT_SUPPORTED_YET, "SIGNAL of a warning or not-found condition")
    items = {"MESSAGE_TEXT": ER_SIGNAL_EXCEPTION.template, "MYSQL_ERRNO": ER_SIGNAL_EXCEPTION.code}
    k += 1
    if k < len(tokens):
        if not tokens[k].is_word("SET"):
            raise syntax_error(tokens[k].text)
        k += 1
        while k + 2 < len(tokens) and tokens[k].upper in items and tokens[k + 1].text == "=" \
                and tokens[k + 2].kind == "param":
            items[tokens[k].upper] = literals[tokens[k + 2].param]
            k += 3 if k + 3 == len(tokens) or tokens[k + 3].text != "," else 4
        if k != len(tokens):
            raise SQLError(ER_NOT_SUPPORTED_YET, "SIGNAL of this condition information")
    return SQLError(MySQLError(int(items["MYSQL_ERRNO"]), state, "%s"), message=str(items["MESSAGE_TEXT"]))


def _with_literals(shape: str, literals: list[object], texts: list[str]) -> str:
    """A shape's `?` written back as MySQL literals (as written, where their text is known)."""
    parts = shape.split("?")
    out = [parts[0]]
    for n, part in enumerate(parts[1:]):
        out.append(texts[n] if n < len(texts) else _mysql_literal(literals[n]))
        out.append(part)
    return "".join(out)


def _mysql_literal(value: object) -> str:
    if isinstance(value, bytes):
        return "X'" + bytes(value).hex() + "'"
    if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
        return str(value)
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def check_rows(trigger: Trigger, table: Table) -> None:
    """What MariaDB's CREATE TRIGGER checks of NEW / OLD: the row the event has (1363), the
    columns (1054), an assignment (1362; a BEFORE trigger's SET NEW is 1235 here)."""
    steps = body_steps(trigger.body)
    for statement in [*split_body(trigger.body), *(text for step in steps for text in step.conditions)]:
        shape, _ = extract(statement)
        tokens = tokenize(shape)
        if tokens and tokens[0].is_word("SET"):
            row = tokens[1].upper if len(tokens) > 1 else ""
            if row == "OLD" or row == "NEW" and trigger.timing == "AFTER":
                raise SQLError(ER_TRG_CANT_CHANGE_ROW, row, "after " if row == "NEW" else "")
            if assignments(statement) is None:
                raise SQLError(ER_NOT_SUPPORTED_YET, "SET of a variable in a trigger")
        for k, tok in enumerate(tokens[:-2]):
            if not (tok.is_word("NEW", "OLD") and tokens[k + 1].text == "." and (k == 0 or tokens[k - 1].text != ".")):
                continue
            row = tok.upper
            if (row, trigger.event) in (("NEW", "DELETE"), ("OLD", "INSERT")):
                raise SQLError(ER_TRG_NO_SUCH_ROW_IN_TRG, row, f"on {trigger.event}")
            name = tokens[k + 2].text.strip("`")
            if table.column(name) is None:
                raise SQLError(ER_BAD_FIELD_ERROR, name, row)


def assignments(statement: str) -> list[tuple[str, str]] | None:
    """`SET NEW.col = expr [, NEW.col = expr] ...`'s (column, expression text) pairs, in order
    (None: any other statement; a SET of anything but NEW's columns too)."""
    shape, literals = extract(statement)
    tokens = tokenize(shape)
    if not tokens or not tokens[0].is_word("SET"):
        return None
    texts = literal_texts(statement)
    out, depth, k, seen = [], 0, 1, 0
    while k < len(tokens):
        if not (k + 3 < len(tokens) and tokens[k].is_word("NEW") and tokens[k + 1].text == "."
                and tokens[k + 3].text in ("=", ":=")):
            return None
        column, start, first = tokens[k + 2].text.strip("`"), tokens[k + 3].end, seen
        k += 4
        while k < len(tokens) and not (depth == 0 and tokens[k].text == ","):
            depth += {"(": 1, ")": -1}.get(tokens[k].text, 0) if tokens[k].kind == "op" else 0
            seen += tokens[k].kind == "param"
            k += 1
        end = tokens[k].start if k < len(tokens) else len(shape)
        out.append((column, _with_literals(shape[start:end].strip(), literals[first:seen],
                                           texts[first:seen] if len(texts) == len(literals) else [])))
        k += 1
    return out


def _row_markers(statement: str, table: Table, stored_new: bool = False,
                 names: dict[str, tuple[str, str]] | None = None) -> tuple[str, list[object], dict[int, str]]:
    """The statement's shape with each NEW.col / OLD.col a literal of the column's kind (an
    integer column's 0, else ''), its literals, and the SQLite text of each marker literal
    (`stored_new`: NEW.col read from the row as stored, which BEFORE triggers' SETs changed);
    `names`: the body's local variables (lower name -> (`__trg_var`'s key, type)), each a marker
    of its type's kind too."""
    shape, literals = extract(statement)
    tokens = tokenize(shape)
    out, params, markers = [], [], {}
    columns = routines.named_columns(tokens) if names else set()
    at = k = 0
    while k < len(tokens):
        tok = tokens[k]
        found = names.get(tok.text.strip("`").lower()) if names and tok.kind in ("word", "ident") else None
        if found is not None and k not in columns and (k == 0 or tokens[k - 1].text != ".") and not (
                k + 1 < len(tokens) and tokens[k + 1].text in (".", "(")):
            out.append(shape[at:tok.start] + "?")
            markers[len(params)] = f"__trg_var({sql_literal(found[0])})"
            params.append(0 if _numeric(found[1]) else "")
            at = tok.end
            k += 1
            continue
        if (tok.is_word("NEW", "OLD") and k + 2 < len(tokens) and tokens[k + 1].text == "."
                and (k == 0 or tokens[k - 1].text != ".")):
            column = table.column(tokens[k + 2].text.strip("`"))
            out.append(shape[at:tok.start] + "?")
            markers[len(params)] = (f"(SELECT {quote_ident(column.name)} FROM {quote_ident(table.name)} "
                                    f"WHERE rowid = NEW.rowid)" if stored_new and tok.upper == "NEW"
                                    else f"{tok.upper}.{quote_ident(column.name)}")
            params.append(0 if column.base in INT_TYPES else "")
            at = tokens[k + 2].end
            k += 3
            continue
        if tok.kind == "param":
            out.append(shape[at:tok.end])
            at = tok.end
            params.append(literals[tok.param])
        k += 1
    out.append(shape[at:])
    return "".join(out), params, markers


def _numeric(type_text: str) -> bool:
    """Whether a declared type holds numbers."""
    return type_text.split("(")[0].split()[0].lower() in INT_TYPES | REAL_TYPES | NUMERIC_TYPES


_REFUSED_PLAN = ("into_vars", "multi", "returning", "user_vars", "sysvars", "uses_last_id", "sets_last_id",
                 "uses_rand", "uses_fraction", "ignore", "auto_select_slot", "auto_selected_at", "ids_returned",
                 "row_order")  # (an UPDATE ... ORDER BY: a row at a time by the writer)


def statement_sql(statement: str, trigger: Trigger, table: Table, plan_of: Callable[[str, list], Plan],
                  stored_new: bool = False, names: dict[str, tuple[str, str]] | None = None
                  ) -> tuple[str, tuple[str, str]]:
    """One body statement as SQLite text for a trigger in the table's file, and the table it
    writes (schema, name). 1235 for what a SQLite trigger cannot run as the writer would."""
    shape, params, markers = _row_markers(statement, table, stored_new, names)
    plan = plan_of(shape, params)
    if plan.kind != "write" or plan.target is None:
        raise SQLError(ER_NOT_SUPPORTED_YET, "a trigger statement other than INSERT, REPLACE, UPDATE or DELETE")
    refused = [name for name in _REFUSED_PLAN if getattr(plan, name)]
    if refused or plan.target[0] != trigger.schema or any(
            not _id_given(plan.args[slot], params, markers) for slot in plan.auto_slots or () if slot is not None):
        raise SQLError(ER_NOT_SUPPORTED_YET, "this statement in a trigger")
    texts = literal_texts(shape)
    sql = _inline(plan.sql, [_arg_sql(source, params, markers, texts) for source in plan.args])
    if plan.upsert:  # (its rows are not the firing statement's to count: `mysql_upsert_mark`'s)
        sql = sql.replace("mysql_upsert_mark(", "__trg_unmarked(")
    return sql.replace(quote_ident(trigger.schema) + ".", ""), plan.target


def _id_given(source, params: list[object], markers: dict[int, str]) -> bool:
    """An AUTO_INCREMENT column's value given by NEW / OLD or a literal other than 0 and NULL (a
    SQLite trigger cannot take the writer's next id)."""
    at = source if type(source) is int else source[1] if type(source) is tuple and len(source) > 1 else None
    return type(at) is int and (at in markers or params[at] not in (None, 0))


def _arg_sql(source, params: list[object], markers: dict[int, str], texts: list[str]) -> str:
    if type(source) is int:
        return markers.get(source) or _sqlite_literal(params[source])
    if type(source) is str and source in _TIME_SOURCES:
        return f"__trg_time({_TIME_SOURCES[source]})"
    kind = source[0] if type(source) is tuple else None
    if kind in (STORE, "bytes", TYPED, FIXEDBIN) and source[1] in markers:
        return markers[source[1]]
    if kind == STORE:
        return _sqlite_literal(values.stored_literal(source, params, texts))
    if kind == "bytes":
        return _sqlite_literal(values.binary_literal(params[source[1]]))
    if kind == TYPED:
        return _sqlite_literal(values.typed_literal(source[2], params[source[1]]))
    if kind == FIXEDBIN:
        return _sqlite_literal(fixedbin.bound(source[2], params[source[1]], None))
    if kind == "const":
        return _sqlite_literal(source[1])
    raise SQLError(ER_NOT_SUPPORTED_YET, "this expression in a trigger")


def _sqlite_literal(value: object) -> str:
    if type(value) is Hybrid:
        return "X'" + bytes(value).hex() + "'"
    if isinstance(value, Decimal):
        return "'" + format(value, "f") + "'"
    return sql_literal(value)


def _inline(sql: str, args: list[str]) -> str:
    """`sql` with each `?` outside quotes replaced by the next of `args`."""
    out, n, quote = [], 0, None
    for ch in sql:
        if quote is not None:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "?":
            out.append(args[n])
            n += 1
            continue
        out.append(ch)
    return "".join(out)


def _raise_sql(error: SQLError, guard: str = "") -> str:
    """The SQLite statement that fails with `error` (`guard`: where it holds); a SIGNAL's error
    (any code) carries its SQLSTATE (`errors.map_sqlite_error` reads both forms)."""
    text = f"{error.code}|{error.message}" if error.code in _CROSSING else \
        f"signal|{error.code}|{error.sqlstate}|{error.message}"
    return f"SELECT RAISE(ABORT, {sql_literal(text)}){' WHERE ' + guard if guard else ''};"


_CROSSING = frozenset({ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG.code, ER_NO_SUCH_TABLE.code, ER_BAD_FIELD_ERROR.code,
                       ER_NOT_SUPPORTED_YET.code})  # the codes crossing as `<code>|<message>`


def _select_sql(statement: str, trigger: Trigger, table: Table, plan_of: Callable[[str, list], Plan],
                stored_new: bool, names: dict[str, tuple[str, str]],
                wrapped: Callable[[str], str] | None = None) -> str:
    """A SELECT of the body (an IF's condition, a local's value) as SQLite text for a trigger in
    the table's file (1235 for what it cannot run as the writer would); `wrapped`: the SELECT
    made of the statement's shape (an expression's, its markers read first)."""
    shape, params, markers = _row_markers(statement, table, stored_new, names)
    if wrapped is not None:
        shape = wrapped(shape)
    plan = plan_of(shape, params)
    if plan.kind != "select" or any(getattr(plan, name) for name in _REFUSED_PLAN):
        raise SQLError(ER_NOT_SUPPORTED_YET, "this expression in a trigger")
    texts = literal_texts(shape)
    sql = _inline(plan.sql, [_arg_sql(source, params, markers, texts) for source in plan.args])
    return sql.replace(quote_ident(trigger.schema) + ".", "")


def _choice_sql(step: Step, trigger: Trigger, table: Table, plan_of: Callable[[str, list], Plan],
                stored_new: bool, guard: str, names: dict[str, tuple[str, str]]) -> str:
    """An IF's choice of branch for the row, kept by `__trg_branch` for its statements' guards
    (its conditions read once, as MariaDB's IF reads them, however its branch changes NEW)."""
    whens = []
    for n, condition in enumerate(step.conditions, 1):
        sql = _select_sql(f"SELECT 1 FROM DUAL WHERE {condition}", trigger, table, plan_of, stored_new, names)
        whens.append(f"WHEN EXISTS ({sql}) THEN {n}")
    name = sql_literal(f"{trigger.name.lower()}:{step.choice}")
    return (f"SELECT __trg_branch({name}, CASE {' '.join(whens)} ELSE {len(whens) + 1} END)"
            f"{' WHERE ' + guard if guard else ''};")


def _local_sql(step: Step, trigger: Trigger, table: Table, plan_of: Callable[[str, list], Plan],
               stored_new: bool, guard: str, names: dict[str, tuple[str, str]]) -> list[str]:
    """A step that assigns locals (`Step.assigns`), each kept by `__trg_var` as a variable of its
    declared type holds it (`routines.stored_as`: MariaDB's strict errors); SELECT ... INTO's
    one row (1172 for more; none keeps them), then each value as its type holds it."""
    where = f" WHERE {guard}" if guard else ""
    out, values_of = [], [(step.assigns[0][0], step.statement)]
    if step.fetch:
        sql = _select_sql(step.statement, trigger, table, plan_of, stored_new, names)
        out.append(_raise_sql(SQLError(ER_TOO_MANY_ROWS), f"(SELECT COUNT(*) FROM ({sql})) > 1"
                              + (f" AND {guard}" if guard else "")))
        # (the UNION's first SELECT names the row's columns)
        named = ", ".join(f"NULL AS __v{n}" for n in range(len(step.assigns)))
        kept = ", ".join(f"__trg_var({sql_literal(names[name.lower()][0])}, __v{n})"
                         for n, (name, _) in enumerate(step.assigns))
        out.append(f"SELECT {kept} FROM (SELECT {named} WHERE 0 UNION ALL SELECT * FROM ({sql})){where};")
        values_of = [(name, name) for name, _ in step.assigns]
    for name, expression in values_of:
        key, declared = names[name.lower()]

        def stored(shape: str, name: str = name, declared: str = declared) -> str:
            return f"SELECT {routines.stored_as(f'({shape})', name, declared)} FROM DUAL"

        sql = _select_sql(expression, trigger, table, plan_of, stored_new, names, stored)
        out.append(f"SELECT __trg_var({sql_literal(key)}, ({sql})){where};")
    return out


def install_sql(schema: str, triggers: Iterable[Trigger], table_of: Callable[[str], Table | None],
                plan_of: Callable[[str, str, list], Plan], made: set[str]) -> list[str]:
    """The statements that make the schema file's SQLite triggers (`sqlite_names` dropped first)
    from `triggers`, grouped by (table, timing, event) in ACTION_ORDER. A body statement
    of a trigger in `made` (lower names: the ones CREATE TRIGGER makes) that cannot run here
    raises its 1235; a name that is not there (yet) becomes its error when it fires."""
    sql = []
    groups: dict[tuple[str, str, str], list[Trigger]] = {}
    for trigger in ordered(triggers):
        if table_of(trigger.table) is not None:
            groups.setdefault((trigger.table.lower(), trigger.timing, trigger.event), []).append(trigger)
    # a BEFORE trigger that assigns NEW.col (SQLite's cannot): its (table, event)'s BEFORE
    # triggers run first in the AFTER trigger, each SET an UPDATE of the row just written, and
    # NEW.col read from that row
    deferred = {(table, event) for (table, timing, event), group in groups.items() if timing == "BEFORE"
                and any(assignments(s) is not None for t in group for s in split_body(t.body))}
    bodies: dict[tuple[str, str, str], list[str]] = {}
    writes: dict[tuple[str, str, str], set[str]] = {}
    for key, group in groups.items():
        stored_new = (key[0], key[2]) in deferred
        if stored_new:
            key = (key[0], "AFTER", key[2])
        bodies.setdefault(key, []), writes.setdefault(key, set())
        for trigger in group:
            table = table_of(trigger.table)

            def planned(shape: str, params: list) -> Plan:
                return plan_of(shape, schema, params)

            steps = body_steps(trigger.body)
            names = {name.lower(): (f"{schema}.{trigger.name}:{name}".lower(), declared)
                     for step in steps for name, declared in step.assigns}
            for step in steps:
                statement = step.statement
                guard = " AND ".join(f"__trg_branch({sql_literal(f'{trigger.name.lower()}:{n}')}) = {branch}"
                                     for n, branch in step.guard)
                pairs = assignments(statement) if trigger.timing == "BEFORE" else None
                try:
                    if step.choice:
                        bodies[key].append(_choice_sql(step, trigger, table, planned, stored_new, guard, names))
                        continue
                    if step.assigns:
                        bodies[key].extend(_local_sql(step, trigger, table, planned, stored_new, guard, names))
                        continue
                    if (signal := signal_error(statement)) is not None:
                        bodies[key].append(_raise_sql(signal, guard))
                        continue
                    if pairs is not None:
                        bodies[key].extend(_assignment_sql(pairs, trigger, table, planned, guard, names))
                        continue
                    text, target = statement_sql(statement, trigger, table, planned, stored_new, names)
                    text = _guarded(text, guard) if guard else text
                except SQLError as exc:
                    if trigger.name.lower() in made and exc.code not in _LATE_ERRORS:
                        raise
                    bodies[key].append(_raise_sql(exc))
                    continue
                if target[1].lower() == key[0]:  # (its own table: MariaDB's 1442 when it runs)
                    bodies[key].append(_raise_sql(SQLError(ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG, target[1]), guard))
                    continue
                # (a table the firing statement reads: 1442 when this writes it)
                bodies[key].append(_raise_sql(SQLError(ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG, target[1]))[:-1]
                                   + f" WHERE __trg_used({sql_literal(target[1].lower())})"
                                   + (f" AND {guard};" if guard else ";"))
                bodies[key].append(text + ";")
                writes[key].add(target[1].lower())
    for n, (key, statements) in enumerate(sorted(bodies.items())):
        table = table_of(key[0])
        if any(key[0] in _written_from(target, writes) for target in writes[key]):
            statements = [_raise_sql(SQLError(ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG, table.name))]
        sql.append(f"CREATE TRIGGER {quote_ident(schema)}.{quote_ident(f'{_SQLITE_PREFIX}{n}')} {key[1]} {key[2]} "
                   f"ON {quote_ident(table.name)} FOR EACH ROW WHEN __trg_on() BEGIN {' '.join(statements)} END")
    return sql


def _top_words(sql: str) -> list[tuple[int, str]]:
    """SQLite text's words outside quotes and parentheses (upper case), with their offsets."""
    out: list[tuple[int, str]] = []
    depth = k = 0
    while k < len(sql):
        ch = sql[k]
        if ch in "'\"`[":
            k = sql.index("]" if ch == "[" else ch, k + 1) + 1  # (a doubled quote: a string after it)
            continue
        depth += (ch == "(") - (ch == ")")
        if ch.isalpha() or ch == "_":
            end = k
            while end < len(sql) and (sql[end].isalnum() or sql[end] in "_$"):
                end += 1
            if depth == 0:
                out.append((k, sql[k:end].upper()))
            k = end
            continue
        k += 1
    return out


def _guarded(sql: str, guard: str) -> str:
    """A body's write (SQLite text) that writes only where `guard` holds, as a statement inside
    an IF or CASE branch runs only when that branch is taken: an INSERT's rows selected WHERE
    it holds (ahead of its ON CONFLICT), an UPDATE's or DELETE's WHERE joined to it by AND."""
    words = _top_words(sql)
    if words[0][1] in ("INSERT", "REPLACE"):
        at = next((n for n, (_, word) in enumerate(words) if word in ("VALUES", "SELECT")), None)
        if at is None or words[at - 1][1] == "DEFAULT":
            raise SQLError(ER_NOT_SUPPORTED_YET, "this statement in a trigger's IF or CASE")
        source = words[at][0]
        end = next((start for n, (start, word) in enumerate(words) if n > at and word == "ON"
                    and n + 1 < len(words) and words[n + 1][1] == "CONFLICT"), len(sql))
        return f"{sql[:source]}SELECT * FROM ({sql[source:end].rstrip()}) WHERE {guard} {sql[end:]}".rstrip()
    if any(word in ("ORDER", "LIMIT", "RETURNING") for _, word in words):
        raise SQLError(ER_NOT_SUPPORTED_YET, "this statement in a trigger's IF or CASE")
    where = next((start for start, word in words if word == "WHERE"), None)
    if where is None:
        return f"{sql} WHERE {guard}"
    return f"{sql[:where]}WHERE ({sql[where + len('WHERE'):].strip()}) AND {guard}"


def _assignment_sql(pairs: list[tuple[str, str]], trigger: Trigger, table: Table,
                    plan_of: Callable[[str, list], Plan], guard: str = "",
                    names: dict[str, tuple[str, str]] | None = None) -> list[str]:
    """A BEFORE trigger's `SET NEW.col = expr, ...` run after its row is written: each an UPDATE
    of that row, one after the other (a later one reads what an earlier one stored), stored as
    the column stores a write's value (strict mode's errors, conversions), with the table's
    triggers held off (MariaDB fires no UPDATE trigger for it)."""
    out = ["SELECT __trg_hold(1);"]
    # (an ON UPDATE CURRENT_TIMESTAMP column is the firing statement's to stamp, not the SET's)
    for column, expression in pairs:
        kept = "".join(f", {mysql_ident(c.name)} = {mysql_ident(c.name)}" for c in table.columns
                       if c.on_update_now and c.name.lower() != column.lower())
        text, _ = statement_sql(f"UPDATE {mysql_ident(table.name)} SET {mysql_ident(column)} = {expression}{kept}",
                                trigger, table, plan_of, stored_new=True, names=names)
        head = f"UPDATE {quote_ident(table.name)} SET {quote_ident(table.column(column).name)} = "
        if text.startswith(head + "mysql_store(("):
            text = head + "mysql_store_assigned" + text[len(head) + len("mysql_store"):]
        out.append(f"{text} WHERE rowid = NEW.rowid{' AND ' + guard if guard else ''};")
    return out + ["SELECT __trg_hold(0);"]


def _written_from(table: str, writes: dict[tuple[str, str, str], set[str]]) -> set[str]:
    """The tables a statement on `table` writes through its triggers, however deep (of any
    event: an approximation of MariaDB's prelocking, which follows the events written)."""
    seen: set[str] = set()
    todo = [table]
    while todo:
        at = todo.pop()
        for (on, _, _), targets in writes.items():
            if on == at:
                for target in targets - seen:
                    seen.add(target)
                    todo.append(target)
    return seen


def _targets(trigger: Trigger) -> set[str]:
    """The tables (lower names) the body's statements write, read from their first words."""
    found = set()
    for statement in split_body(trigger.body):
        tokens = tokenize(extract(statement)[0])
        if not tokens or not tokens[0].is_word("INSERT", "REPLACE", "UPDATE", "DELETE"):
            continue
        k = 1
        while k < len(tokens) and tokens[k].is_word("LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY", "QUICK", "IGNORE",
                                                    "INTO", "FROM"):
            k += 1
        if k + 2 < len(tokens) and tokens[k + 1].text == ".":
            k += 2
        if k < len(tokens) and tokens[k].kind in ("word", "ident"):
            found.add(tokens[k].text.lower())
    return found


def written_through(triggers: Iterable[Trigger], schema: str, table: str,
                    events: Iterable[str] = ("INSERT", "UPDATE", "DELETE")) -> set[tuple[str, str]]:
    """The tables (schema, lower name) a write to `table` of `events` may write through its
    triggers, however deep (those beyond the first of any event: MariaDB's prelocking follows
    the events written; for the AUTO_INCREMENT counters to read again and note 1592)."""
    targets: dict[str, set[str]] = {}
    first: set[str] = set()
    for trigger in triggers:
        found = _targets(trigger)
        targets.setdefault(trigger.table.lower(), set()).update(found)
        if trigger.table.lower() == table.lower() and trigger.event in events:
            first |= found
    seen = set(first)
    todo = list(first)
    while todo:
        for target in targets.get(todo.pop(), set()) - seen:
            seen.add(target)
            todo.append(target)
    return {(schema, name) for name in seen}


# MariaDB's BINLOG_STMT_UNSAFE_AUTOINC_COLUMNS, for a statement whose triggers write a table that
# has an AUTO_INCREMENT column
_AUTOINC_NOTE = ("Statement is unsafe because it invokes a trigger or a stored function that inserts into an "
                 "AUTO_INCREMENT column. Inserted values cannot be logged correctly")
_EVENTS = {"INSERT": ("INSERT",), "REPLACE": ("INSERT", "DELETE"), "UPDATE": ("UPDATE",), "DELETE": ("DELETE",)}


_QUALIFIED = re.compile(r'"((?:[^"]|"")*)"\."((?:[^"]|"")*)"')
# and BINLOG_STMT_UNSAFE_WRITE_AUTOINC_SELECT, when the statement also reads another table
_AUTOINC_SELECT_NOTE = ("Statements writing to a table with an auto-increment column after selecting from another "
                        "table are unsafe because the order in which rows are retrieved determines what (if any) rows "
                        "will be written. This order cannot be predicted and may differ on master and the slave")


def plan_effects(plan: Plan, triggers: Iterable[Trigger], first_word: str,
                 table_of: Callable[[str, str], Table | None]
                 ) -> tuple[tuple[str, ...], frozenset[str], frozenset[tuple[str, str]]]:
    """What a write's triggers add to its plan (its first word says which events it fires):
    MariaDB's notes 1592 when they write a table with an AUTO_INCREMENT column,
    `Plan.trigger_reads`, the tables its translation names that they write, however deep, and
    `Plan.trigger_writes`, every table they write (whose AUTO_INCREMENT counter is read again)."""
    schema, target = plan.target[0], plan.target[1].lower()
    events = _EVENTS.get(first_word, ()) + (("UPDATE",) if plan.upsert else ())
    written = {name for _, name in written_through(triggers, *plan.target, events)}
    named = {m.group(2).replace('""', '"').lower() for m in _QUALIFIED.finditer(plan.sql)
             if m.group(1).replace('""', '"') == schema}
    notes: tuple[str, ...] = ()
    if any((table := table_of(schema, name)) is not None and table.auto_column is not None for name in written):
        notes = (_AUTOINC_NOTE,) + ((_AUTOINC_SELECT_NOTE,) if named - {target} else ())
    return (tuple(ER_BINLOG_UNSAFE_STATEMENT.format(note) for note in notes), frozenset(named & written),
            frozenset((schema, name) for name in written))


def sqlite_names(conn: sqlite3.Connection, schema: str) -> list[str]:
    """The SQLite triggers `install_sql` made in the schema's file."""
    return [r[0] for r in conn.execute(
        f"SELECT name FROM {quote_ident(schema)}.sqlite_master WHERE type = 'trigger' "
        f"AND name LIKE '\\_\\_trg\\_%' ESCAPE '\\'")]


def named(name: str, schema: str, database: str | None) -> str:
    """A trigger's name as SHOW CREATE and the binlog name it."""
    return mysql_ident(name) if schema == database else f"{mysql_ident(schema)}.{mysql_ident(name)}"
