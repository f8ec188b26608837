"""CALL of a stored procedure (`engine.routines`), as MariaDB 10.11 runs one.

Contract
- CALL [db.]name[(args)]: 1305 for a procedure the schema does not keep, 1318 for a wrong count
  of arguments, 1414 for an OUT / INOUT argument that is not a user variable. IN arguments and
  INOUT variables are evaluated once by the engine (one SELECT), DECLAREd locals from their
  DEFAULT (else NULL), and every value is carried as the literal MariaDB's statement binlog writes
  for it (`sql_prepared.using_literal`), NAME_CONST('name', literal).
- Each body statement is run through `ClientSession.execute` with the parameters and locals it
  names written in as NAME_CONST(...) (`routines.bind`): privileges, read-only, the engine, the
  binlog (which thus holds each statement as MariaDB's does: CALL itself is never binlogged) and
  semi-sync apply to it as to a client's statement; under autocommit each commits on its own.
- Security as MariaDB's: CALL wants EXECUTE on the procedure (globally, on its database or on
  the routine: 1370). The arguments are evaluated as the caller; the body of a SQL SECURITY
  DEFINER procedure (the default) runs with its DEFINER's account (`ClientSession.acting_as`:
  its privileges, its name in errors, CURRENT_USER()), which needs EXECUTE on it too; 1449 when
  no account is the definer; an INVOKER one's as the caller.
- `after_ddl`: automatic_sp_privileges (ON by default): a client's CREATE PROCEDURE / FUNCTION
  grants its account EXECUTE and ALTER ROUTINE on the routine where it lacks them, DROP takes
  every account's grants on it; neither is binlogged. A replica does the same once its applier
  has committed the statement (`after_replicated_ddl`), as MariaDB's SQL thread: DROP takes the
  grants; CREATE grants the routine's DEFINER where that account exists on the replica.
- CALL through COM_STMT_EXECUTE is 1235 (PREPARE / EXECUTE in SQL run it as COM_QUERY does).
- SELECT ... INTO local variables takes its one row (1172 for more, the note 1329 for none).
- A statement that answers a result set (SELECT) sends it at once with SERVER_MORE_RESULTS_EXISTS;
  CALL's own answer is the final OK, as MariaDB's. OUT / INOUT values are set into their user
  variables at the end. SET of a local and IF conditions are evaluated by the engine.
- A block's DECLAREd variables are in scope until it ends, hiding an outer one of the same name
  meanwhile (`_Frame.run`); a CASE statement's branch is chosen by one CASE expression of the
  engine (1339 without a match); WHILE / REPEAT / LOOP / FOR run until LEAVE (or their condition,
  or their range's or cursor's end), each round passing `ClientSession.interruption_point`, so
  that KILL QUERY (1317) and max_statement_time (1969) end a loop as MariaDB's end it. A FOR's
  variable, a cursor FOR loop's record fields (`record.column`) and a cursor's parameters at
  OPEN are variables of their own scope.
- A cursor's SELECT runs at OPEN (with the variables' values then), its rows kept for FETCH, as
  MariaDB's materialized cursors; FETCH past the last row, or SELECT ... INTO of none, is NOT
  FOUND (FETCH's error 1329, SELECT ... INTO's warning). An error a step raises, or the last of
  a statement's warnings and notes that a handler takes, runs the handler in scope for it
  (`_Frame.handle`, `_Frame.warned`: the innermost block's, its most specific, as MariaDB's
  sp_pcontext::find_handler): CONTINUE goes on with the next statement, EXIT ends the handler's
  block; KILL QUERY, the time limit and 1235 are never handled. The session's `diagnostics` are
  the diagnostics area: a statement's warnings replace them, a handled error is their last entry
  while its handler runs, the entries there when a handler began are taken out when it ends;
  GET DIAGNOSTICS reads them. SIGNAL is `server.conditions`' (its variables written in as plain
  literals, a named condition as its SQLSTATE); RESIGNAL raises the error being handled again,
  its SQLSTATE and items as it says (`conditions.resignalled`; 1645 outside a handler; a handled
  warning RESIGNALled without an error's SQLSTATE is a warning again, added to the diagnostics
  area). CALL's OK carries its last statement's warnings. An error that ends the body gets
  MariaDB's note 4094 after it in the area ("At line n in db.name": the line, in the routine's
  SHOW CREATE text, of the statement that raised it), each calling routine adding its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Any

from engine import routines
from engine.ddl import missing_routine
from protocol.binary import ParamType
from protocol.errors import (
    ER_BAD_NULL_ERROR,
    ER_DA_INVALID_CONDITION_NUMBER,
    ER_NO_DB_ERROR,
    ER_NOT_SUPPORTED_YET,
    ER_QUERY_INTERRUPTED,
    ER_SP_CASE_NOT_FOUND,
    ER_SP_CURSOR_ALREADY_OPEN,
    ER_SP_CURSOR_MISMATCH,
    ER_SP_CURSOR_NOT_OPEN,
    ER_SP_DOES_NOT_EXIST,
    ER_SP_FETCH_NO_DATA,
    ER_SP_NOT_VAR_ARG,
    ER_SP_STACK_TRACE,
    ER_SP_UNDECLARED_VAR,
    ER_SP_WRONG_NO_OF_FETCH_ARGS,
    ER_STATEMENT_TIMEOUT,
    ER_TOO_MANY_ROWS,
    ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT,
    MySQLError,
    SQLError,
    sqlstate_of,
)
from protocol.messages import OK, FieldType
from server import conditions
from server.prepared import literal as _literal
from server.privileges import definer_account, routine_named
from server.sql_prepared import using_literal
from server.variables import Scope

if TYPE_CHECKING:
    from server.listener import Server
    from server.session import ClientSession
    from server.users import Account, UserStore


def parse_call(sql: str) -> tuple[str | None, str, list[str]]:
    """CALL [db.]name[(args)]: (db or None, name, the arguments' texts)."""
    body = routines._Body(sql.rstrip().rstrip(";"))
    tokens = body.tokens
    k = 1
    schema, name = None, tokens[k].text.strip("`") if len(tokens) > k else ""
    if len(tokens) > k + 2 and tokens[k + 1].text == ".":
        schema, name, k = name, tokens[k + 2].text.strip("`"), k + 2
    k += 1
    args: list[str] = []
    if k < len(tokens):
        if tokens[k].text != "(" or tokens[-1].text != ")":
            raise SQLError(ER_NO_DB_ERROR) if not name else _syntax(sql)
        if k + 1 < len(tokens) - 1:
            for a, b in routines._cut_top(tokens[k + 1:-1], body.shape):
                args.append(body.span(a + k + 1, b + k + 1))
    return schema, name, args


def _syntax(sql: str) -> SQLError:
    from protocol.errors import ER_PARSE_ERROR
    return SQLError(ER_PARSE_ERROR, sql[:80], 1)


AUTOMATIC_GRANTS = ("EXECUTE", "ALTER ROUTINE")  # mysqld's DEFAULT_CREATE_PROC_ACLS
_STRING_TYPES = ("CHAR", "VARCHAR", "TEXT", "TINYTEXT", "MEDIUMTEXT", "LONGTEXT", "ENUM", "SET", "NCHAR",
                 "NVARCHAR", "CHARACTER", "NATIONAL", "JSON")
_DECIMAL_TYPES = ("DECIMAL", "DEC", "NUMERIC", "FIXED")
_INTEGER_TYPES = ("INT", "INTEGER", "TINYINT", "SMALLINT", "MEDIUMINT", "BIGINT", "BOOL", "BOOLEAN")


class _Frame:
    """A running procedure's variables: name (lower) -> (value, literal), each variable's
    declared type's first word in `types`."""

    def __init__(self, session: ClientSession, options: Any):
        self.session = session
        self.options = options  # the routine's database's (a string variable's character set)
        self.values: dict[str, tuple[Any, str]] = {}
        self.types: dict[str, str] = {}  # name -> its declared type
        self.affected = 0  # its statements' affected rows, summed: CALL's OK carries them, as MariaDB's
        self.cursors: dict[str, _Cursor] = {}  # name (lower) -> the cursor in scope
        self.handlers: list[tuple[routines.Step, object]] = []  # in scope, innermost last, with their block's mark
        self.handled: list[SQLError] = []  # the conditions whose handlers run, innermost last (RESIGNAL's)
        self.at: routines.Step | None = None  # the step running (an error's note 4094 names its line)

    def declare(self, name: str, declared: str, value: tuple[Any, str]) -> None:
        self.types[name] = declared.strip()
        self.assign(name, value)

    def assign(self, name: str, value: tuple[Any, str]) -> None:
        """The variable's value as its declared type holds it, and its literal as MariaDB's
        binlog writes it (sp_head's subst_spvars: a string with its character set and collation)."""
        declared, (raw, literal) = self.types.get(name, ""), value
        kind = declared.split("(")[0].split()[0].upper() if declared else ""
        if raw is not None and kind in _DECIMAL_TYPES:
            args = declared.partition("(")[2].partition(")")[0].split(",")
            scale = int(args[1]) if len(args) > 1 and args[1].strip().isdigit() else 0
            try:
                raw = Decimal(str(raw)).quantize(Decimal(1).scaleb(-scale))
                literal = str(raw)
            except ArithmeticError:
                pass
        elif raw is not None and kind in _INTEGER_TYPES and not isinstance(raw, int):
            try:
                raw = int(Decimal(str(raw)).to_integral_value())
                literal = str(raw)
            except ArithmeticError:
                pass
        elif raw is not None and kind in _STRING_TYPES:
            raw = raw if isinstance(raw, str) else bytes(raw).decode() if isinstance(raw, (bytes, bytearray)) else str(raw)
            options = self.options
            literal = f"_{options.charset}{literal_text(raw)} COLLATE '{options.collation}'"
        self.values[name] = (raw, literal)

    def plainly_bound(self, text: str) -> str:
        """SIGNAL's / RESIGNAL's text with the variables' values as the literals
        `server.conditions` reads."""
        return routines.bind(text, {name: _plain_literal(raw) for name, (raw, _) in self.values.items()})

    def bound(self, text: str) -> str:
        written = {name: f" NAME_CONST('{name}',{literal})" for name, (_, literal) in self.values.items()}
        return routines.bind(text, written)

    async def evaluate(self, texts: list[str]) -> list[tuple[Any, str]]:
        """Expressions' values and literals, in one SELECT of the engine."""
        if not texts:
            return []
        sql = "SELECT " + ", ".join(self.bound(t) for t in texts)
        result = self.session.evaluate_now(sql)
        if result is None:
            result = await self.session.evaluate_select(sql)
        return [(value, _literal_of(value, kind)) for value, kind in zip(result.rows[0], result.column_types,
                                                                          strict=True)]

    async def select_into(self, step: routines.Step) -> None:
        """SELECT ... INTO variables: its one row's values (MariaDB's 1222 for another count of
        columns, 1172 for more than one row, the warning 1329 and the variables kept for none)."""
        result = await self.session.execute(self.bound(step.text))
        if len(result.columns) != len(step.names):
            raise SQLError(ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT)
        if len(result.rows) > 1:
            raise SQLError(ER_TOO_MANY_ROWS)
        self.affected += len(result.rows)  # (MariaDB's row count of a SELECT ... INTO)
        if not result.rows:
            entry = ("Warning", ER_SP_FETCH_NO_DATA.code, ER_SP_FETCH_NO_DATA.template)
            self.session.diagnostics = [*self.session.diagnostics, entry]
            if self.handlers:
                await self.warned([entry])
            return
        self.assign_row(step.names, result.rows[0], result.column_types)

    def assign_row(self, names: list[str], row: tuple, types: list) -> None:
        for name, value, kind in zip(names, row, types, strict=True):
            if name.lower() not in self.values:
                raise SQLError(ER_SP_UNDECLARED_VAR, name)
            self.assign(name.lower(), (value, _literal_of(value, kind)))

    def handler_for(self, exc: SQLError, level: str) -> tuple[routines.Step, object] | None:
        """The handler in scope for a condition of `level` (Error, Warning or Note), and its
        block's mark, as MariaDB's sp_pcontext::find_handler: the innermost block's that has
        one, its most specific (the error code, then the SQLSTATE, then SQLWARNING / NOT FOUND /
        SQLEXCEPTION), the first declared of equals; for a condition that left a handler
        (RESIGNAL's, a failing statement's), only those outside that handler's block."""
        code, state, best = str(exc.code), exc.sqlstate, None
        for handler, mark in reversed(self.handlers[:getattr(exc, "handlers_outside", None)]):
            if best is not None and mark is not best[2]:
                break
            for condition in handler.names:
                rank = _rank(condition, code, state, level)
                if rank and (best is None or rank >= best[0]):  # (>=: the handlers are read last first)
                    best = (rank, handler, mark)
        return None if best is None else (best[1], best[2])

    async def handle(self, exc: SQLError) -> None:
        """An error a statement raised: the handler in scope for it runs (`run_handler`), the
        error the diagnostics area's last condition meanwhile; without one the error stands. An
        interrupted statement and what is not run here (1235) are never handled: a handler must
        not stand for what MariaDB would have done."""
        found = None if exc.code in _UNHANDLED else self.handler_for(exc, "Error")
        if found is None:
            raise exc
        self.session.diagnostics = [*exc.warnings, _Condition(("Error", exc.code, exc.message), exc.sqlstate,
                                                              exc.items)]
        await self.run_handler(exc, *found)

    async def warned(self, entries: list[tuple[str, int, str]]) -> None:
        """A statement's warnings and notes (`entries`, in the diagnostics area): the handler in
        scope for the last of them that has one runs, as MariaDB's
        sp_rcontext::handle_sql_condition chooses; without one they are only kept."""
        found = None
        for entry in entries:
            if entry[0] in ("Warning", "Note"):
                condition = SQLError(MySQLError(entry[1], _sqlstate(entry), "%s"), entry[2])
                condition.level = entry[0]
                handler = self.handler_for(condition, entry[0])
                if handler is not None:
                    found = (condition, handler)
        if found is not None:
            await self.run_handler(found[0], *found[1])

    async def run_handler(self, exc: SQLError, handler: routines.Step, mark: object) -> None:
        """A handler's statement for the condition `exc` (CONTINUE: then the next statement;
        EXIT: then its block ends), the handlers of its block and inner ones out of scope
        meanwhile; the conditions the diagnostics area held when it began are taken out of it
        when it ends, as MariaDB's."""
        marked = list(self.session.diagnostics)
        saved = self.handlers
        outside = next(k for k, (_, m) in enumerate(saved) if m is mark)
        self.handlers = saved[:outside]
        self.handled.append(exc)
        try:
            await self.run(handler.steps)
        except SQLError as escaped:
            escaped.handlers_outside = min(outside, getattr(escaped, "handlers_outside", outside))
            raise
        finally:
            self.handlers = saved
            self.handled.pop()
        if marked:
            ids = {id(entry) for entry in marked}
            self.session.diagnostics = [entry for entry in self.session.diagnostics if id(entry) not in ids]
        if handler.text == "EXIT":
            raise _Leave(mark)

    def cursor(self, name: str) -> _Cursor:
        found = self.cursors.get(name.lower())
        if found is None:
            raise SQLError(ER_SP_CURSOR_MISMATCH, name)
        return found

    async def cursor_step(self, step: routines.Step) -> None:
        """OPEN (its SELECT run with the variables' values then, its rows kept), FETCH (the next
        row into the variables; NOT FOUND past the last), CLOSE: MariaDB's 1325 / 1326 / 1328."""
        cursor = self.cursor(step.label)
        if step.kind == "open":
            await self.open(cursor, step.args)
            return
        if cursor.rows is None:
            raise SQLError(ER_SP_CURSOR_NOT_OPEN)
        if step.kind == "close":
            cursor.rows = None
        elif cursor.at >= len(cursor.rows):
            raise SQLError(ER_SP_FETCH_NO_DATA)
        else:
            row = cursor.rows[cursor.at]
            cursor.at += 1
            if len(row) != len(step.names):
                raise SQLError(ER_SP_WRONG_NO_OF_FETCH_ARGS)
            self.assign_row(step.names, row, cursor.types)

    async def open(self, cursor: _Cursor, args: list[str]) -> None:
        """OPEN: the cursor's SELECT run with the variables' values, its parameters' the
        arguments' (hiding variables of their names), its rows kept (1325 for an open cursor;
        a count of arguments not its parameters' is the parser's 4080)."""
        if cursor.rows is not None:
            raise SQLError(ER_SP_CURSOR_ALREADY_OPEN)
        if not cursor.params:
            text = self.bound(cursor.text)
        else:
            values = await self.evaluate(args)
            hidden = self.hide([name for name, _ in cursor.params])
            try:
                for (name, declared), value in zip(cursor.params, values, strict=True):
                    self.declare(name.lower(), declared, value)
                text = self.bound(cursor.text)
            finally:
                self.restore(hidden)
        result = await self.session.execute(text)
        cursor.rows, cursor.types, cursor.columns, cursor.at = list(result.rows), result.column_types, \
            list(result.columns), 0

    def hide(self, names: list[str]) -> dict[str, tuple[tuple[Any, str], str] | None]:
        """The variables of `names` as they are (None: none), to `restore` when a scope ends."""
        hidden: dict[str, tuple[tuple[Any, str], str] | None] = {}
        for name in names:
            key = name.lower()
            if key not in hidden:
                hidden[key] = (self.values[key], self.types[key]) if key in self.values else None
        return hidden

    def restore(self, hidden: dict[str, tuple[tuple[Any, str], str] | None]) -> None:
        for key, kept in hidden.items():
            if kept is None:
                self.values.pop(key, None)
                self.types.pop(key, None)
            else:
                self.values[key], self.types[key] = kept

    async def holds(self, condition: str) -> bool:
        return _true((await self.evaluate([condition]))[0][0])

    async def run(self, steps: list[routines.Step]) -> None:
        """A block's steps, each variable it DECLAREs in scope until it ends (hiding an outer one
        of the same name meanwhile)."""
        hidden: dict[str, tuple[tuple[Any, str], str] | None] = {}
        hidden_cursors: dict[str, _Cursor | None] = {}
        mark, handled = object(), len(self.handlers)  # (an EXIT handler's LEAVE of this block)
        try:
            for step in steps:
                if step.kind == "declare":
                    hidden = {**self.hide(step.names), **hidden}
                elif step.kind == "cursor":
                    key = step.names[0].lower()
                    hidden_cursors.setdefault(key, self.cursors.get(key))
                    self.cursors[key] = _Cursor(step.text, step.assignments)
                    continue
                elif step.kind == "handler":
                    self.handlers.append((step, mark))
                    continue
                elif step.kind == "condition":  # (its name stands for its value in the body's steps)
                    continue
                try:
                    await self.run_step(step)
                except SQLError as exc:
                    if not self.handlers:
                        raise
                    await self.handle(exc)
        except _Leave as leave:
            if leave.label is not mark:
                raise
        finally:
            del self.handlers[handled:]
            for key, cursor in hidden_cursors.items():
                if cursor is None:
                    self.cursors.pop(key, None)
                else:
                    self.cursors[key] = cursor
            self.restore(hidden)

    async def run_step(self, step: routines.Step) -> None:
        session = self.session
        kind = step.kind
        self.at = step
        if kind == "declare":
            value = (await self.evaluate([step.default]))[0] if step.default is not None else (None, "NULL")
            for name in step.names:
                self.declare(name.lower(), step.type, value)
        elif kind == "set":
            found = await self.evaluate([text for _, text in step.assignments])
            for (name, _), value in zip(step.assignments, found, strict=True):
                if name.lower() not in self.values:
                    await session.execute(f"SET {name} = {value[1]}")  # (a session variable)
                else:
                    self.assign(name.lower(), value)
        elif kind == "if":
            for condition, branch in step.branches:
                if condition is None or await self.holds(condition):
                    await self.run(branch)
                    break
        elif kind == "case":
            await self.run(await self.chosen(step))
        elif kind == "block":
            try:
                await self.run(step.steps)
            except _Leave as leave:
                if leave.label != step.label.lower():
                    raise
        elif kind in ("while", "repeat", "loop"):
            await self.loop(step)
        elif kind == "for":
            await self.for_range(step)
        elif kind == "for_cursor":
            await self.for_cursor(step)
        elif kind == "leave":
            raise _Leave(step.label.lower())
        elif kind == "iterate":
            raise _Iterate(step.label.lower())
        elif kind == "select_into":
            await self.select_into(step)
        elif kind in ("open", "fetch", "close"):
            await self.cursor_step(step)
        elif kind == "signal":
            await self.warnings_of(await session.execute(self.plainly_bound(step.text)))
        elif kind == "diagnostics":
            await self.get_diagnostics(step)
        elif kind == "resignal":
            if not self.handled:
                await session.execute("RESIGNAL")  # (MariaDB's 1645: no handler is active)
            handled = self.handled[-1]
            if not step.text and handled.level == "Error":
                raise handled
            raised = await conditions.resignalled(session, self.plainly_bound(step.text or "RESIGNAL"), handled)
            if raised.level == "Error":
                raise raised
            # (a warning again: added to the area, taken by a handler outside this one's block)
            entry = _Condition((raised.level, raised.code, raised.message), raised.sqlstate, raised.items)
            session.diagnostics = [*session.diagnostics, entry]
            await self.warned([entry])
        else:
            result = await session.execute(self.bound(step.text))
            if getattr(result, "columns", None):
                session.send_more_result(result)
            else:
                self.affected += getattr(result, "affected_rows", 0) or 0
            await self.warnings_of(result)

    async def warnings_of(self, result: Any) -> None:
        """A statement's warnings: the diagnostics area's (CALL's OK counts its last statement's,
        as MariaDB's), then handled (`warned`)."""
        warnings = getattr(result, "warnings", None)
        if isinstance(warnings, int):  # (an OK an admin handler answered: its warnings are the area's last)
            entries = self.session.diagnostics[-warnings:] if warnings else []
        else:
            entries = list(warnings or ())
            if entries:
                self.session.diagnostics = entries
        if entries and self.handlers:
            await self.warned(entries)

    async def get_diagnostics(self, step: routines.Step) -> None:
        """GET DIAGNOSTICS of the diagnostics area the previous statement left, which it keeps:
        the statement's items (NUMBER, ROW_COUNT) or, `step.text` its number, a condition's
        (MYSQL_ERRNO, RETURNED_SQLSTATE, MESSAGE_TEXT), into local or user variables. A number
        that names no condition adds MariaDB's error condition 1758 to the area, the statement
        itself succeeding (sql_get_diagnostics.cc)."""
        session = self.session
        entries = session.diagnostics
        if step.text:
            number = (await self.evaluate([step.text]))[0][0]
            n = int(Decimal(str(number)).to_integral_value()) if number is not None else 0
            if not 1 <= n <= len(entries):
                failed = ER_DA_INVALID_CONDITION_NUMBER
                session.diagnostics = [*entries, _Condition(("Error", failed.code, failed.template), failed.sqlstate)]
                return
            entry = entries[n - 1]
            items: dict[str, Any] = {"MYSQL_ERRNO": entry[1], "RETURNED_SQLSTATE": _sqlstate(entry),
                                     "MESSAGE_TEXT": entry[2], **dict.fromkeys(routines.CONDITION_STRING_ITEMS, ""),
                                     **dict(getattr(entry, "items", ()))}
        else:
            es = session.engine_session
            items = {"NUMBER": len(entries), "ROW_COUNT": es.row_count if es is not None else -1}
        for target, item in step.assignments:
            value = items[item]
            if target.startswith("@"):
                session.user_vars[target[1:].lower()] = value
                continue
            if target.lower() not in self.values:
                raise SQLError(ER_SP_UNDECLARED_VAR, target)
            self.assign(target.lower(), (value, str(value) if isinstance(value, int) else literal_text(value)))

    async def chosen(self, step: routines.Step) -> list[routines.Step]:
        """The branch a CASE statement takes: the first WHEN whose value equals the CASE's (or
        whose condition holds), else ELSE's; MariaDB's 1339 without ELSE. One CASE expression of
        the engine chooses, evaluating the value once."""
        whens = [when for when, _ in step.branches if when is not None]
        head = f"CASE ({step.text}) " if step.text else "CASE "
        choice = head + " ".join(f"WHEN ({when}) THEN {n}" for n, when in enumerate(whens, 1)) + " ELSE 0 END"
        found = (await self.evaluate([choice]))[0][0]
        if found:
            return step.branches[int(found) - 1][1]
        if step.branches[-1][0] is None:
            return step.branches[-1][1]
        raise SQLError(ER_SP_CASE_NOT_FOUND)

    async def loop(self, step: routines.Step) -> None:
        """WHILE (its condition before each round), REPEAT (UNTIL after each round) or LOOP,
        until LEAVE of its label; ITERATE of its label starts the next round. Each round passes
        the session's interruption point: a loop runs until KILL QUERY or max_statement_time
        ends it, as MariaDB's, and never holds the event loop."""
        while True:
            await self.session.interruption_point()
            if step.kind == "while" and not await self.holds(step.text):
                return
            ended = await self.round(step)
            if ended == "leave":
                return
            if ended is None and step.kind == "repeat" and await self.holds(step.text):
                return

    async def round(self, step: routines.Step) -> str | None:
        """A loop's steps once: "leave" where LEAVE of its label ended the loop, "iterate" where
        ITERATE of its label ended the round, else None."""
        label = step.label.lower()
        try:
            await self.run(step.steps)
        except _Leave as leave:
            if leave.label != label:
                raise
            return "leave"
        except _Iterate as again:
            if again.label != label:
                raise
            return "iterate"
        return None

    async def for_range(self, step: routines.Step) -> None:
        """FOR var IN [REVERSE] lower .. upper: the bounds evaluated once, var (a BIGINT of the
        loop's own scope, hiding one of its name) from lower up to upper (REVERSE: from upper
        down to lower), one each round after the round's steps (ITERATE's too), as MariaDB's; a
        NULL bound is MariaDB's 1048, naming the variable for the first, `[target_bound]` for the
        other. Each round passes the interruption point, as `loop`'s."""
        assert step.default is not None
        (lower, _), (upper, _) = await self.evaluate([step.text, step.default])
        key, reverse = step.names[0].lower(), step.type == "REVERSE"
        hidden = self.hide([key])
        try:
            first, last = (upper, lower) if reverse else (lower, upper)
            if first is None:
                raise SQLError(ER_BAD_NULL_ERROR, step.names[0])
            if last is None:
                raise SQLError(ER_BAD_NULL_ERROR, "[target_bound]")
            first, last = _integer(first), _integer(last)
            self.declare(key, "BIGINT", (first, str(first)))
            while True:
                await self.session.interruption_point()
                at = self.values[key][0]
                if at is None or (at < last if reverse else at > last):
                    return
                if await self.round(step) == "leave":
                    return
                at = self.values[key][0]
                if at is None:
                    return
                at = int(at) + (-1 if reverse else 1)
                self.assign(key, (at, str(at)))
        finally:
            self.restore(hidden)

    async def for_cursor(self, step: routines.Step) -> None:
        """FOR record IN cursor [(arguments)] / FOR record IN (SELECT ...): the cursor opened
        (1325 for an open one), each of its rows a round, its columns the record's fields
        (`record.column`, written in as NAME_CONST('record.column', value) as MariaDB's binlog
        writes them), the cursor closed when the loop ends. Each round passes the interruption
        point."""
        cursor = self.cursor(step.type) if step.type else _Cursor(step.text)
        await self.open(cursor, step.args)
        record = step.names[0].lower()
        fields = [f"{record}.{name.lower()}" for name in cursor.columns]
        hidden = self.hide(fields)
        try:
            while True:
                await self.session.interruption_point()
                assert cursor.rows is not None
                if cursor.at >= len(cursor.rows):
                    return
                row = cursor.rows[cursor.at]
                cursor.at += 1
                for key, value, kind in zip(fields, row, cursor.types, strict=True):
                    self.types[key] = "VARCHAR" if isinstance(value, str) and _is_text(kind) else ""
                    self.assign(key, (value, _literal_of(value, kind)))
                if await self.round(step) == "leave":
                    return
        finally:
            cursor.rows = None
            self.restore(hidden)


_UNHANDLED = (ER_QUERY_INTERRUPTED.code, ER_STATEMENT_TIMEOUT.code, ER_NOT_SUPPORTED_YET.code)


def _rank(condition: str, code: str, state: str, level: str) -> int:
    """How specifically a handler's condition names a raised one (0: not at all), as MariaDB's
    sp_condition_value::matches: SQLWARNING takes a warning-level condition or a '01' one,
    SQLEXCEPTION an error-level one outside classes '00', '01' and '02'."""
    if condition == code:
        return 3
    if condition.startswith("SQLSTATE "):
        return 2 if condition[len("SQLSTATE "):] == state else 0
    if condition == "SQLWARNING":
        return 1 if state.startswith("01") or level == "Warning" else 0
    if condition == "NOT FOUND":
        return 1 if state.startswith("02") else 0
    return 1 if condition == "SQLEXCEPTION" and level == "Error" and state[:2] not in ("00", "01", "02") else 0


class _Condition(tuple):
    """A diagnostics area's entry (level, code, message) that keeps its SQLSTATE, which a
    signalled condition's code does not tell, and the items SIGNAL set (`SQLError.items`)."""

    sqlstate: str
    items: tuple[tuple[str, str], ...]

    def __new__(cls, entry: tuple[str, int, str], sqlstate: str, items: tuple[tuple[str, str], ...] = ()
                ) -> _Condition:
        made = super().__new__(cls, entry)
        made.sqlstate = sqlstate
        made.items = items
        return made


def _sqlstate(entry: tuple[str, int, str]) -> str:
    return getattr(entry, "sqlstate", None) or sqlstate_of(entry[1])


@dataclass
class _Cursor:
    text: str  # its SELECT
    params: list[tuple[str, str]] = field(default_factory=list)  # (name, declared type)
    rows: list | None = None  # None while closed
    types: list = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    at: int = 0  # the next row FETCH takes


def _integer(value: Any) -> int:
    """A FOR bound as the loop's BIGINT holds it (rounded half away from zero)."""
    return int(Decimal(str(value)).to_integral_value(rounding=ROUND_HALF_UP))


def _is_text(kind: Any) -> bool:
    """Whether a result column is a character string (not binary)."""
    return getattr(kind, "charset", 0) != 63


class _Jump(Exception):
    """LEAVE's and ITERATE's way out of the steps up to their label's block or loop (no error)."""

    def __init__(self, label: str | object):
        super().__init__(label)
        self.label = label  # lower-case (an EXIT handler's: its block's mark)


class _Leave(_Jump):
    """LEAVE label: the block or loop of that label ends."""


class _Iterate(_Jump):
    """ITERATE label: the loop of that label starts its next round."""


def literal_text(text: str) -> str:
    """A string as a quoted SQL literal."""
    return _literal(text, ParamType(FieldType.VAR_STRING))


def _literal_of(value: Any, kind: Any) -> str:
    """A result value (of a column typed `kind`) as the literal a statement binlog writes."""
    if value is None:
        return "NULL"
    return using_literal(value, getattr(kind, "type", FieldType.VAR_STRING), getattr(kind, "charset", 0))


def _plain_literal(value: Any) -> str:
    """A variable's value as a plain literal (a string quoted, without character set)."""
    if value is None:
        return "NULL"
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode(errors="replace")
    return literal_text(value) if isinstance(value, str) else str(value)


def _true(value: Any) -> bool:
    if value is None:
        return False
    try:
        return float(value) != 0
    except (TypeError, ValueError):
        return False


async def call(session: ClientSession, sql: str, keyword: str) -> Any:
    if session.command == "Execute":  # (COM_STMT_EXECUTE: its result sets would be binary rows)
        raise SQLError(ER_NOT_SUPPORTED_YET, "CALL as a prepared statement of the binary protocol")
    schema, name, args = parse_call(sql)
    schema = schema or session.database
    if schema is None:
        raise SQLError(ER_NO_DB_ERROR)
    if session.privileges is not None:  # (an account without ALL: EXECUTE wanted)
        session.privileges.require_routine(schema, "PROCEDURE", name, "EXECUTE")
    routine = session.server.engine.routine(schema, "PROCEDURE", name)
    if routine is None:
        raise missing_routine("PROCEDURE", name, schema)
    routines.check_arguments(routine, len(args))
    steps = routines.body_steps(routine.body, routine.body_line())
    frame, targets = await _bound(session, routine, schema, args)
    if routine.security == "DEFINER":  # (the arguments are the caller's, the body the definer's)
        with session.acting_as(definer_account(session, routine)):
            if session.privileges is not None:  # (the definer needs EXECUTE too, as mysqld)
                session.privileges.require_routine(schema, "PROCEDURE", name, "EXECUTE")
            await _traced(frame, routine, steps)
    else:
        await _traced(frame, routine, steps)
    for pname, variable in targets:
        session.user_vars[variable] = frame.values[pname][0]
    return OK(frame.affected, warnings=len(session.diagnostics))  # (its last statement's, as MariaDB's)


async def _traced(frame: _Frame, routine: routines.Routine, steps: list[routines.Step]) -> None:
    """The body's steps run; an error that ends it gets MariaDB's note 4094 after it (sp_head's
    execute: "At line n in db.name", the line of the statement that raised it), a routine that
    called it adding its own after."""
    try:
        await frame.run(steps)
    except SQLError as exc:
        line = frame.at.line if frame.at is not None else routine.body_line()
        note = ("Note", ER_SP_STACK_TRACE.code, ER_SP_STACK_TRACE.format(line, f"{routine.schema}.{routine.name}"))
        exc.trace = (*exc.trace, note)
        raise


async def _bound(session: ClientSession, routine: routines.Routine, schema: str,
                 args: list[str]) -> tuple[_Frame, list[tuple[str, str]]]:
    """The procedure's frame with its parameters bound to the arguments (evaluated by the
    caller), and its OUT / INOUT parameters' user variables."""
    frame = _Frame(session, session.server.engine.options_of(schema))
    targets: list[tuple[str, str]] = []  # (parameter, user variable) of OUT / INOUT
    evaluated: list[tuple[str, str]] = []  # (parameter, expression) of IN / INOUT
    for n, (param, arg) in enumerate(zip(routine.parsed, args, strict=True), 1):
        if param.mode != "IN":
            if not arg.startswith("@") or arg.startswith("@@"):
                raise SQLError(ER_SP_NOT_VAR_ARG, n, f"{schema}.{routine.name}")
            targets.append((param.name.lower(), arg[1:].strip("`'\"")))
        frame.declare(param.name.lower(), param.type, (None, "NULL"))
        if param.mode != "OUT":
            evaluated.append((param.name.lower(), arg))
    for (pname, _), value in zip(evaluated, await frame.evaluate([arg for _, arg in evaluated]), strict=True):
        frame.assign(pname, value)
    return frame, targets


def after_ddl(session: ClientSession, sql: str) -> None:
    """After a client's CREATE / DROP statement succeeded: with automatic_sp_privileges ON,
    CREATE PROCEDURE / FUNCTION grants its account EXECUTE and ALTER ROUTINE on the routine
    where it lacks them (mysqld's sp_grant_privileges: not binlogged), DROP takes every account's
    grants on it (sp_revoke_privileges)."""
    named = _routine_ddl(sql, session.database)
    if named is None or not session.read_sysvar("@@global.automatic_sp_privileges"):
        return
    verb, kind, db, name = named
    if verb == "DROP":
        session.server.users.drop_routine_grants(db, kind, name)
    else:
        _grant_automatic(session.server.users, session.account, db, kind, name, f"{session.user}@{session.host}")


def after_replicated_ddl(server: Server, sql: str, database: str | None) -> None:
    """After a replica's applier committed a DDL statement (`database` its default one), what
    MariaDB's SQL thread does with automatic_sp_privileges ON: DROP PROCEDURE / FUNCTION takes
    every account's grants on the routine; CREATE grants the routine's DEFINER EXECUTE and ALTER
    ROUTINE on it where that account exists here and lacks them (sql_parse.cc: the slave thread
    grants as the definer; without such an account it holds every privilege and grants none)."""
    named = _routine_ddl(sql, database)
    if named is None or not server.variables.get("automatic_sp_privileges", None, Scope.GLOBAL):
        return
    verb, kind, db, name = named
    users = server.users
    if verb == "DROP":
        users.drop_routine_grants(db, kind, name)
        return
    routine = server.engine.routine(db, kind, name)
    if routine is not None:
        user, host = routines.definer_parts(routine.definer)
        _grant_automatic(users, users.get(user, host) or users.match(user, host), db, kind, name, f"{user}@{host}")


def _routine_ddl(sql: str, database: str | None) -> tuple[str, str, str, str] | None:
    """CREATE / DROP of a procedure or function in a database: (CREATE or DROP, the kind, the
    database, the name); None for any other statement."""
    upper = sql.upper()
    if "PROCEDURE" not in upper and "FUNCTION" not in upper:
        return None
    tokens = routines._Body(sql).tokens
    named = routine_named(tokens, [t.upper for t in tokens], database)
    if named is None or named[2] is None:
        return None
    verb, kind, db, name = named
    return verb, kind, db, name


def _grant_automatic(users: UserStore, account: Account | None, db: str, kind: str, name: str, grantor: str) -> None:
    """EXECUTE and ALTER ROUTINE on the routine to `account` where it lacks either."""
    if account is None or all(account.holds_routine(p, db, kind, name) for p in AUTOMATIC_GRANTS):
        return
    users.grant_routine(account, set(AUTOMATIC_GRANTS), False, db, kind, name, grantor)


def function_call_refused(session: ClientSession, error: SQLError) -> SQLError:
    """The engine's 1305 for a function it lacks: MariaDB's 1235 where the database keeps a stored
    function of that name (a call the engine does not write out, `engine.routines.expand_calls`:
    in a statement other than a SELECT, INSERT, UPDATE, DELETE, REPLACE or DO), else the error itself."""
    if error.code != ER_SP_DOES_NOT_EXIST.code or not error.message.startswith("FUNCTION "):
        return error
    schema, _, name = error.message[len("FUNCTION "):].rpartition(" does not exist")[0].rpartition(".")
    if session.server.engine.routine(schema or session.database or "", "FUNCTION", name) is None:
        return error
    return SQLError(ER_NOT_SUPPORTED_YET, "calling a stored function")
