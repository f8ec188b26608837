"""Stored procedures and functions (a subset of MariaDB 10.11's), kept in the schema's catalog.

The catalog keeps each `Routine` as MariaDB shows it (its parameter list, RETURNS type,
characteristics and body as written, definer, sql_mode) under `ROUTINE_PREFIX + kind + name` in
the schema's `__engine_catalog`, as views and triggers are kept; `Engine.routines` holds them per
schema. CREATE is binlogged as MariaDB writes it (`Routine.show_create` with DEFINER).

What runs: CALL of a procedure whose body is one statement or [label:] BEGIN ... END holding
DECLAREd local variables (DEFAULT evaluated at the block's entry), SET of locals (and user
variables), SELECT ... INTO locals, IF ... THEN ... [ELSEIF ...] [ELSE ...] END IF, the CASE
statement (simple and searched), [label:] WHILE / REPEAT / LOOP / FOR (a range, a cursor, a
SELECT) with LEAVE / ITERATE label, nested [label:] BEGIN ... END blocks with their own DECLAREs,
cursors (DECLARE ... CURSOR [(parameters)] FOR, OPEN [(arguments)], FETCH, CLOSE), DECLARE ...
CONDITION FOR (a name standing for its SQLSTATE or error code in handlers and SIGNAL), CONTINUE /
EXIT handlers FOR NOT FOUND, SQLEXCEPTION, SQLWARNING, SQLSTATE '...', an error code or a
condition's name, GET DIAGNOSTICS (NUMBER, ROW_COUNT; a condition's MYSQL_ERRNO,
RETURNED_SQLSTATE, MESSAGE_TEXT and the string items SIGNAL sets, CLASS_ORIGIN ..., '' where
none did) and plain statements (`body_steps`). Each
statement is run by the caller (`server/routines.py`) as a statement of its own, with the
parameters and locals it names written in as MariaDB's binlog writes them, NAME_CONST('name',
value), so the binlog holds what MariaDB's holds and a replica runs it alike; CALL itself is
never binlogged. CREATE checks a body as MariaDB's parser does (`check_body`: labels 1308, 1309,
1310; RETURN in a procedure 1313; a condition or cursor not declared in scope 1319 / 1324,
declared twice 1332 / 1333, a handler's condition twice in a block 1413, declarations out of
order 1337 / 1338, SIGNAL of an error code's condition 1646, a cursor's count of arguments 4080).
SIGNAL and RESIGNAL run. An UNDO handler and GET STACKED DIAGNOSTICS are MariaDB 10.11's 1064 at
CREATE, as its grammar has neither. A stored function can be made, listed, shown
and dropped; one whose body is `RETURN expr` (or BEGIN RETURN expr; END) is called in a SELECT
/ INSERT / UPDATE / DELETE / REPLACE / DO by writing the call out where it stands (`expand_calls`),
before the statement is planned: expr with each parameter replaced by its
argument as a column of the parameter's type stores it under the caller's sql_mode
(mysql_assigned(value, `name`, `type`): `mysql_store`, 1264 / 1366 / 1406 as MariaDB's; a type
`values.target` does not check, a CAST), the value stored alike into the RETURNS type under the
sql_mode the function was made with and typed as it (mysql_returned(value, `type`), `exprtypes`);
a select item holding a call named as written; a SQL SECURITY DEFINER function's CURRENT_USER
its definer (`_as_definer`). The binlog keeps the statement as written, as
MariaDB's does, and a replica expands the call alike. Any other body is 1235 at the call, as is a
call where the statement is not one of those (`server.routines.function_call_refused`).
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import asdict, dataclass, field
from functools import lru_cache

from engine import values
from engine.catalog import TokenCursor, parse_column
from engine.coltypes import ColumnType, declared_type
from engine.exprtypes import closing
from engine.lexer import extract, literal_texts, mysql_ident, syntax_error, tokenize
from protocol.errors import (
    ER_NOT_SUPPORTED_YET,
    ER_SIGNAL_BAD_CONDITION_TYPE,
    ER_SP_BAD_SQLSTATE,
    ER_SP_BADRETURN,
    ER_SP_COND_MISMATCH,
    ER_SP_CURSOR_AFTER_HANDLER,
    ER_SP_CURSOR_MISMATCH,
    ER_SP_DOES_NOT_EXIST,
    ER_SP_DUP_COND,
    ER_SP_DUP_CURS,
    ER_SP_DUP_HANDLER,
    ER_SP_DUP_VAR,
    ER_SP_LABEL_MISMATCH,
    ER_SP_LABEL_REDEFINE,
    ER_SP_LILABEL_MISMATCH,
    ER_SP_UNDECLARED_VAR,
    ER_SP_VARCOND_AFTER_CURSHNDLR,
    ER_SP_WRONG_NO_OF_ARGS,
    ER_WRONG_PARAMCOUNT_TO_CURSOR,
    ER_WRONG_VALUE,
    SQLError,
)

ROUTINE_PREFIX = "\x00routine:"  # catalog keys of routines: never a table name
_SQLSTATE = re.compile(r"[0-9A-Z]{5}")


@dataclass
class Param:
    mode: str  # IN | OUT | INOUT (a function's: IN)
    name: str
    type: str  # as written


@dataclass
class Routine:
    schema: str
    name: str
    kind: str  # PROCEDURE | FUNCTION
    params: str  # the parameter list as written, without its parentheses
    body: str
    returns: str = ""  # a function's RETURNS type as written
    access: str = ""  # NO SQL | READS SQL DATA | MODIFIES SQL DATA | "" (CONTAINS SQL)
    deterministic: bool = False
    security: str = "DEFINER"
    comment: str = ""
    definer: str = "`root`@`localhost`"
    created: float = 0.0
    sql_mode: str = ""
    parsed: list[Param] = field(default_factory=list)

    def to_json(self) -> str:
        data = asdict(self)
        del data["parsed"]
        return json.dumps({"routine": data})

    @staticmethod
    def from_json(text: str) -> Routine:
        routine = Routine(**json.loads(text)["routine"])
        routine.parsed = parse_params(routine.params, routine.kind)
        return routine

    @property
    def key(self) -> str:
        return catalog_key(self.kind, self.name)

    def show_create(self, head: str = "CREATE", qualified: bool = False) -> str:
        """MariaDB's text of the routine (sp.cc's show_create_sp): SHOW CREATE's "Create
        Procedure" / "Create Function", and with `head` "CREATE OR REPLACE" the binlog's."""
        name = f"{mysql_ident(self.schema)}.{mysql_ident(self.name)}" if qualified else mysql_ident(self.name)
        text = f"{head} DEFINER={self.definer} {self.kind} {name}({self.params})"
        if self.kind == "FUNCTION":
            text += f" RETURNS {self.returns}"
        text += "\n"
        if self.access:
            text += f"    {self.access}\n"
        if self.deterministic:
            text += "    DETERMINISTIC\n"
        if self.security == "INVOKER":
            text += "    SQL SECURITY INVOKER\n"
        if self.comment:
            text += "    COMMENT " + "'" + self.comment.replace("\\", "\\\\").replace("'", "\\'") + "'\n"
        return text + self.body

    def body_line(self) -> int:
        """The line its body starts on in `show_create`'s text, as MariaDB numbers a routine's
        lines: from the text it makes again of mysql.proc's columns when it loads one."""
        text = self.show_create()
        return text.count("\n", 0, len(text) - len(self.body)) + 1

    def modified_text(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.created))

    def schema_row(self, collation: str) -> tuple:
        """information_schema.ROUTINES' row (`collation`: its database's)."""
        data_type, dtd = type_info(self.returns) if self.kind == "FUNCTION" else ("", None)
        length, octets, precision, scale, dt_precision, charset, coll = _type_sizes(self.returns) \
            if self.kind == "FUNCTION" else (None,) * 7
        created = self.modified_text()
        return (self.name, "def", self.schema, self.name, self.kind, data_type, length, octets, precision, scale,
                dt_precision, charset, coll, dtd, "SQL", self.body, None, None, "SQL",
                "YES" if self.deterministic else "NO", self.access or "CONTAINS SQL", None, self.security,
                created, created, self.sql_mode, self.comment, self.definer.replace("`", ""), "utf8mb4",
                "utf8mb4_general_ci", collation)

    def parameter_rows(self) -> list[tuple]:
        """information_schema.PARAMETERS' rows: a function's RETURNS first (position 0)."""
        rows = []
        if self.kind == "FUNCTION":
            data_type, dtd = type_info(self.returns)
            rows.append(("def", self.schema, self.name, 0, None, None, data_type, *_type_sizes(self.returns), dtd,
                         self.kind))
        for n, param in enumerate(self.parsed, 1):
            data_type, dtd = type_info(param.type)
            rows.append(("def", self.schema, self.name, n, param.mode, param.name, data_type,
                         *_type_sizes(param.type), dtd, self.kind))
        return rows

    def status_row(self, collation: str) -> tuple:
        """SHOW PROCEDURE / FUNCTION STATUS's row (`collation`: its database's)."""
        return (self.schema, self.name, self.kind, self.definer.replace("`", ""), self.modified_text(),
                self.modified_text(), self.security, self.comment, "utf8mb4", "utf8mb4_general_ci", collation)


def _column(type_text: str):
    shape, params = extract(type_text)
    try:
        return parse_column(TokenCursor(tokenize(shape), params, type_text), "", [])
    except SQLError:
        return None


def type_info(type_text: str) -> tuple[str, str]:
    """A declared type's DATA_TYPE and DTD_IDENTIFIER, as information_schema lists them."""
    column = _column(type_text)
    if column is None:
        return type_text.split("(")[0].strip().lower(), type_text.lower()
    return ("int" if column.base == "integer" else column.base), column.type_text


_TEXT = {"char", "varchar", "text", "tinytext", "mediumtext", "longtext", "enum", "set"}
_NUMBER_PRECISION = {"tinyint": 3, "smallint": 5, "mediumint": 7, "int": 10, "integer": 10, "bigint": 19}


def _type_sizes(type_text: str) -> tuple:
    """CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH, NUMERIC_PRECISION, NUMERIC_SCALE,
    DATETIME_PRECISION, CHARACTER_SET_NAME, COLLATION_NAME of a declared type (a string's in
    utf8mb4, the server's)."""
    column = _column(type_text)
    if column is None:
        return (None,) * 7
    base = column.base
    if base in ("char", "varchar"):
        length = int(column.args[0]) if column.args else 1
        return (length, length * 4, None, None, None, "utf8mb4", "utf8mb4_general_ci")
    if base in _NUMBER_PRECISION:
        return (None, None, _NUMBER_PRECISION[base] + (1 if column.unsigned and base == "bigint" else 0), 0, None,
                None, None)
    if base == "decimal":
        args = column.args or ["10"]
        return (None, None, int(args[0]), int(args[1]) if len(args) > 1 else 0, None, None, None)
    if base in ("datetime", "timestamp", "time"):
        return (None, None, None, None, int(column.args[0]) if column.args else 0, None, None)
    return (None,) * 7


_DEFINER = re.compile(r"`((?:[^`]|``)*)`@`((?:[^`]|``)*)`")


def definer_parts(definer: str) -> tuple[str, str]:
    """A DEFINER as kept (`user`@`host`) -> (user, host)."""
    found = _DEFINER.fullmatch(definer)
    if found is None:
        user, _, host = definer.rpartition("@")
        return user.strip("`'"), host.strip("`'")
    return found.group(1).replace("``", "`"), found.group(2).replace("``", "`")


def catalog_key(kind: str, name: str) -> str:
    return f"{ROUTINE_PREFIX}{kind}:{name.lower()}"


def _cut_top(tokens, text: str, stop: str = ",") -> list[tuple[int, int]]:
    """The spans (token index ranges) of `tokens` cut at top-level `stop` ops."""
    spans, depth, start = [], 0, 0
    for k, tok in enumerate(tokens):
        if tok.kind == "op" and tok.text == "(":
            depth += 1
        elif tok.kind == "op" and tok.text == ")":
            depth -= 1
        elif depth == 0 and tok.kind == "op" and tok.text == stop:
            spans.append((start, k))
            start = k + 1
    spans.append((start, len(tokens)))
    return spans


def parse_params(text: str, kind: str) -> list[Param]:
    """A parameter list as written: [IN | OUT | INOUT] name type, ..."""
    parsed = _Body(text)
    tokens = parsed.tokens
    if not tokens:
        return []
    params = []
    for start, end in _cut_top(tokens, parsed.shape):
        mode = "IN"
        if kind == "PROCEDURE" and end - start > 2 and tokens[start].is_word("IN", "OUT", "INOUT"):
            mode = tokens[start].upper
            start += 1
        if end - start < 2:
            raise SQLError(ER_NOT_SUPPORTED_YET, "this parameter list")
        params.append(Param(mode, tokens[start].text.strip("`"), parsed.span(start + 1, end)))
    return params


def unsafe_to_log(routine: Routine) -> bool:
    """A function none of DETERMINISTIC, NO SQL, READS SQL DATA: what MariaDB's 1418 refuses to
    make, or to call under binlog_format STATEMENT, with the binlog on and
    log_bin_trust_function_creators OFF."""
    return not routine.deterministic and routine.access not in ("NO SQL", "READS SQL DATA")


def check_arguments(routine: Routine, count: int) -> None:
    if count != len(routine.parsed):
        raise SQLError(ER_SP_WRONG_NO_OF_ARGS, routine.kind, f"{routine.schema}.{routine.name}",
                       len(routine.parsed), count)


# --- bodies ---------------------------------------------------------------------------------


@dataclass
class Step:
    """One step of a body: `kind` "sql" (a statement's text), "select_into" (a SELECT's text and
    the variables its one row goes into), "declare" (names, type, default expression text or
    None), "set" (assignments: (name, expression text)), "if" (branches: (condition text or None
    for ELSE, steps)), "case" (`text` the simple CASE's value, "" for a searched one; branches as
    IF's, WHEN's value or condition), "block" (BEGIN ... END: its steps, DECLAREs first), "while"
    (`text` its condition), "repeat" (`text` its UNTIL condition), "loop", "leave" / "iterate"
    (`label`), "for" (`names` its variable, `text` and `default` its bounds, `type` REVERSE or
    ""), "for_cursor" (`names` its record, `type` the cursor's name, or "" and `text` its SELECT;
    `args` the cursor's arguments), "cursor" (`names` its name, `text` its SELECT, `assignments`
    its parameters: (name, type)), "condition" (`names` its name, `text` its value), "handler"
    (`text` CONTINUE or EXIT, `names` its conditions, `steps` its statement), "open" (`label` the
    cursor, `args` its arguments) / "close" (`label`), "fetch" (and `names` the variables),
    "signal" (`text` the SIGNAL statement), "resignal" (`text` the RESIGNAL statement, "" for
    RESIGNAL alone), "diagnostics" (GET DIAGNOSTICS: `text` the condition's number or "",
    `assignments` (target, item)), "refused"
    (`text` what is not run here: CALL of the body is 1235)."""

    kind: str
    text: str = ""
    names: list[str] = field(default_factory=list)
    type: str = ""
    default: str | None = None
    assignments: list[tuple[str, str]] = field(default_factory=list)
    branches: list[tuple[str | None, list[Step]]] = field(default_factory=list)
    label: str = ""  # a block's or loop's label as written ("" for none), LEAVE's / ITERATE's
    steps: list[Step] = field(default_factory=list)  # a block's or loop's
    args: list[str] = field(default_factory=list)  # a cursor's arguments (OPEN's, FOR's)
    line: int = 0  # its line in the routine's SHOW CREATE text (`Routine.body_line`: MariaDB's note 4094 names it)


_COMPOUND = ("BEGIN", "WHILE", "LOOP", "REPEAT", "FOR")  # what a label may stand before
_COMPOUND_KINDS = ("if", "case", "block", "while", "repeat", "loop", "for", "for_cursor", "handler")


@dataclass
class _Scope:
    """What a block declares, as MariaDB's parser keeps it (sp_pcontext): its conditions (name,
    lower-case -> their value as a handler names it: "SQLSTATE xxxxx" or an error code), its
    cursors (lower-case -> their count of parameters) and the condition values its handlers name."""

    conditions: dict[str, str] = field(default_factory=dict)
    cursors: dict[str, int] = field(default_factory=dict)
    handled: set[str] = field(default_factory=set)
_REFUSED_WORDS = ("RETURN",)
_STATEMENT_ITEMS = ("NUMBER", "ROW_COUNT")  # GET DIAGNOSTICS' items run here
# a condition's string items, in MariaDB's order of evaluation (Diag_condition_item_name): what
# SIGNAL / RESIGNAL may set, '' where nothing set them
CONDITION_STRING_ITEMS = ("CLASS_ORIGIN", "SUBCLASS_ORIGIN", "CONSTRAINT_CATALOG", "CONSTRAINT_SCHEMA",
                          "CONSTRAINT_NAME", "CATALOG_NAME", "SCHEMA_NAME", "TABLE_NAME", "COLUMN_NAME", "CURSOR_NAME")
_CONDITION_ITEMS = ("MYSQL_ERRNO", "RETURNED_SQLSTATE", "MESSAGE_TEXT", *CONDITION_STRING_ITEMS)


class _Body:
    """A body's text cut into `Step`s (its literals kept as written). Labels are checked as
    MariaDB's parser checks them (`labels`: those in scope, lower-case, and whether each is a
    loop's); what is parsed but not run here is noted in `refused`."""

    def __init__(self, body: str, kind: str = "PROCEDURE", line: int = 1):
        self.text = body
        self.kind = kind
        self.line = line  # the line of the statement the body starts on (MariaDB's 1064 names it)
        self.shape, literals = extract(body)
        self.tokens = tokenize(self.shape)
        texts = literal_texts(body)
        self.texts = texts if len(texts) == len(literals) else None
        self.i = 0
        self.labels: list[tuple[str, bool]] = []
        self.refused: list[str] = []
        self.scopes: list[_Scope] = []  # the blocks being read, innermost last

    def span(self, start: int, end: int, replaced: dict[int, str] | None = None) -> str:
        """The body's text of tokens [start, end) with its literals written back (and the
        tokens of `replaced` by its texts)."""
        if start >= end:
            return ""
        tokens = self.tokens
        out, at = [], tokens[start].start
        for k in range(start, end):
            tok = tokens[k]
            if replaced and k in replaced:
                out.append(self.shape[at:tok.start])
                out.append(replaced[k])
                at = tok.end
            elif tok.kind == "param":
                out.append(self.shape[at:tok.start])
                if self.texts is None:
                    raise SQLError(ER_NOT_SUPPORTED_YET, "this literal in a stored procedure")
                out.append(self.texts[tok.param])
                at = tok.end
        out.append(self.shape[at:tokens[end - 1].end])
        return "".join(out)

    def statement_end(self, start: int) -> int:
        """The index of the `;` (or the end) ending the statement at `start`."""
        depth = 0
        for k in range(start, len(self.tokens)):
            tok = self.tokens[k]
            if tok.kind == "op" and tok.text in "()":
                depth += 1 if tok.text == "(" else -1
            elif depth == 0 and tok.kind == "op" and tok.text == ";":
                return k
        return len(self.tokens)

    def steps(self, stops: tuple[str, ...]) -> list[Step]:
        """Steps up to (not past) a token that is one of the words `stops`."""
        out: list[Step] = []
        tokens = self.tokens
        while self.i < len(tokens):
            tok = tokens[self.i]
            if tok.kind == "op" and tok.text == ";":
                self.i += 1
                continue
            if tok.is_word(*stops):
                return out
            out.append(self.step())
        return out

    def top_word(self, start: int, *words: str) -> int:
        """The index of the first of `words` from `start` outside parentheses and CASE ... END
        expressions (1235 for none)."""
        depth = cases = 0
        for k in range(start, len(self.tokens)):
            tok = self.tokens[k]
            if tok.kind == "op" and tok.text in "()":
                depth += 1 if tok.text == "(" else -1
            elif depth == 0 and tok.is_word("CASE"):
                cases += 1
            elif depth == 0 and cases and tok.is_word("END"):
                cases -= 1
            elif depth == 0 and not cases and tok.is_word(*words):
                return k
        raise SQLError(ER_NOT_SUPPORTED_YET, "this statement in a stored procedure")

    def expect(self, *words: str) -> None:
        for word in words:
            if self.i >= len(self.tokens) or not self.tokens[self.i].is_word(word):
                raise SQLError(ER_NOT_SUPPORTED_YET, f"this {words[-1]} in a stored procedure")
            self.i += 1

    def syntax(self, k: int) -> SQLError:
        """MariaDB's 1064 for what stands at token `k` (the rest of the body its near text)."""
        tokens = self.tokens
        at = tokens[k].start if k < len(tokens) else len(self.shape)
        return syntax_error(self.span(k, len(tokens)), self.line + self.shape.count("\n", 0, at))

    def statements(self, stops: tuple[str, ...]) -> list[Step]:
        """`steps`, at least one (MariaDB's grammar wants one in a loop or a branch)."""
        found = self.steps(stops)
        if not found:
            raise self.syntax(self.i)
        return found

    def refuse(self, what: str) -> Step:
        self.refused.append(what)
        return Step("refused", text=what)

    def step(self) -> Step:
        """The step at tokens[self.i] (self.i then past it), with its line: where its statement
        ends (its `;`), as MariaDB's parser numbers the instruction it makes of it once read; a
        compound statement's where it begins."""
        start = self.tokens[self.i].start
        step = self.one_step()
        if step.kind not in _COMPOUND_KINDS:
            start = self.tokens[min(self.i, len(self.tokens) - 1)].start
        step.line = self.line + self.shape.count("\n", 0, start)
        return step

    def one_step(self) -> Step:
        tokens = self.tokens
        tok = tokens[self.i]
        if tok.kind in ("word", "ident") and self.i + 2 < len(tokens) and tokens[self.i + 1].kind == "op" \
                and tokens[self.i + 1].text == ":":
            self.i += 2
            if not tokens[self.i].is_word(*_COMPOUND):
                raise self.syntax(self.i)
            return self.compound(tok.text)
        if tok.is_word(*_COMPOUND):
            return self.compound("")
        if tok.is_word("IF"):
            return self.if_step()
        if tok.is_word("CASE"):
            return self.case_step()
        if tok.is_word("LEAVE", "ITERATE"):
            return self.jump()
        if tok.is_word("DECLARE") and self.i + 1 < len(tokens) and tokens[self.i + 1].is_word("CONTINUE", "EXIT",
                                                                                            "UNDO"):
            return self.handler()
        end = self.statement_end(self.i)
        start, self.i = self.i, end
        if tok.is_word("RETURN") and self.kind == "PROCEDURE":
            raise SQLError(ER_SP_BADRETURN)
        if tok.is_word(*_REFUSED_WORDS):
            return self.refuse(tok.upper)
        if tok.is_word("GET"):
            return self.diagnostics(start, end)
        if tok.is_word("SIGNAL"):
            return Step("signal", text=self.signalled(start, end))
        if tok.is_word("RESIGNAL"):
            return Step("resignal", text=self.signalled(start, end) if end > start + 1 else "")
        if tok.is_word("OPEN", "CLOSE", "FETCH"):
            return self.cursor_step(start, end)
        if tok.is_word("DECLARE"):
            part = tokens[start + 1:end]
            names, k = [], 0
            while k < len(part):
                names.append(part[k].text.strip("`"))
                if k + 1 < len(part) and part[k + 1].text == ",":
                    k += 2
                    continue
                break
            rest = start + 1 + k + 1
            if k == 0 and end - start > 4 and tokens[start + 2].is_word("CURSOR") and tokens[start + 3].is_word("FOR"):
                self.declare_cursor(names[0])
                return Step("cursor", names=names, text=self.span(start + 4, end))
            if k == 0 and end - start > 6 and tokens[start + 2].is_word("CURSOR") and tokens[start + 3].text == "(":
                close = closing(tokens, start + 3)
                if close + 2 >= end or not tokens[close + 1].is_word("FOR"):
                    raise self.syntax(close + 1)
                params = [(p.name, p.type) for p in parse_params(self.span(start + 4, close), "FUNCTION")]
                self.declare_cursor(names[0], len(params))
                return Step("cursor", names=names, text=self.span(close + 2, end), assignments=params)
            if k == 0 and end - start > 3 and tokens[start + 2].is_word("CONDITION") \
                    and tokens[start + 3].is_word("FOR"):
                return self.condition(names[0], start + 4, end)
            declared = next((t.upper for t in part[:k + 2] if t.is_word("CURSOR", "CONDITION")), None)
            if declared is not None:
                return self.refuse("DECLARE " + declared)
            if not names or rest >= end:
                raise SQLError(ER_NOT_SUPPORTED_YET, "this DECLARE in a stored procedure")
            default_at = next((j for j in range(rest, end) if tokens[j].is_word("DEFAULT")), None)
            return Step("declare", names=names, type=self.span(rest, default_at or end),
                        default=self.span(default_at + 1, end) if default_at is not None else None)
        if tok.is_word("SET") and not (start + 1 < end and tokens[start + 1].is_word(
                "GLOBAL", "SESSION", "LOCAL", "NAMES", "CHARACTER", "TRANSACTION", "PASSWORD", "ROLE",
                "STATEMENT", "DEFAULT")):
            assignments = []
            for a, b in _cut_top(tokens[start + 1:end], self.shape):
                a, b = a + start + 1, b + start + 1
                eq = next((j for j in range(a, b) if tokens[j].kind == "op" and tokens[j].text in ("=", ":=")), None)
                if eq is None or tokens[a].kind == "var" or eq != a + 1:
                    return Step("sql", text=self.span(start, end))  # (user or system variables: as written)
                assignments.append((tokens[a].text.strip("`"), self.span(eq + 1, b)))
            return Step("set", assignments=assignments)
        if tok.is_word("SELECT"):
            into = self.select_into(start, end)
            if into is not None:
                return into
        return Step("sql", text=self.span(start, end))

    def condition_value(self, k: int) -> tuple[str, int]:
        """SQLSTATE [VALUE] 'sqlstate' or an error code at token `k`: the value as a handler
        names it and the index after it (MariaDB's parser: 1407 for a SQLSTATE that is not five
        digits or capital letters or is of class '00', 1525 for the code 0); ("", k) for neither."""
        tokens = self.tokens
        if k < len(tokens) and tokens[k].is_word("SQLSTATE"):
            k += 2 if k + 1 < len(tokens) and tokens[k + 1].is_word("VALUE") else 1
            if k >= len(tokens) or tokens[k].kind != "param":
                raise self.syntax(k)
            state = self.span(k, k + 1).strip("'\"")
            if not _SQLSTATE.fullmatch(state) or state.startswith("00"):
                raise SQLError(ER_SP_BAD_SQLSTATE, state)
            return "SQLSTATE " + state, k + 1
        if k < len(tokens) and tokens[k].kind == "param" and self.span(k, k + 1).isdigit():
            code = self.span(k, k + 1)
            if int(code) == 0:
                raise SQLError(ER_WRONG_VALUE, "CONDITION", "0")
            return str(int(code)), k + 1
        return "", k

    def condition(self, name: str, start: int, end: int) -> Step:
        """DECLARE name CONDITION FOR {SQLSTATE [VALUE] 'sqlstate' | error code}: the name stands
        for its value in the block's handlers and SIGNALs (1332 for a name the block declared)."""
        value, k = self.condition_value(start)
        if not value or k != end:
            raise self.syntax(k)
        declared = self.scopes[-1].conditions if self.scopes else {}
        if name.lower() in declared:
            raise SQLError(ER_SP_DUP_COND, name)
        declared[name.lower()] = value
        return Step("condition", names=[name], text=value)

    def named_condition(self, name: str) -> str:
        """The value of the condition a name declares in scope (MariaDB's 1319 for none)."""
        for scope in reversed(self.scopes):
            value = scope.conditions.get(name.lower())
            if value is not None:
                return value
        raise SQLError(ER_SP_COND_MISMATCH, name)

    def signalled(self, start: int, end: int) -> str:
        """SIGNAL's or RESIGNAL's text with a named condition written as its SQLSTATE (MariaDB's
        parser: 1319 for a name not declared, 1646 for one declared with an error code)."""
        tokens = self.tokens
        if start + 1 >= end or tokens[start + 1].is_word("SQLSTATE", "SET") \
                or tokens[start + 1].kind not in ("word", "ident"):
            return self.span(start, end)
        value = self.named_condition(tokens[start + 1].text.strip("`"))
        if not value.startswith("SQLSTATE "):
            raise SQLError(ER_SIGNAL_BAD_CONDITION_TYPE)
        return f"{tokens[start].upper} SQLSTATE '{value[len('SQLSTATE '):]}' {self.span(start + 2, end)}".rstrip()

    def diagnostics(self, start: int, end: int) -> Step:
        """GET [CURRENT] DIAGNOSTICS target = NUMBER | ROW_COUNT [, ...], or GET [CURRENT]
        DIAGNOSTICS CONDITION n target = MYSQL_ERRNO | RETURNED_SQLSTATE | MESSAGE_TEXT |
        CLASS_ORIGIN | ... [, ...] (a target a variable or @user variable): `text` the condition's
        number ("" for the statement's items), `assignments` (target, item). GET STACKED is
        MariaDB 10.11's 1064."""
        tokens = self.tokens
        if start + 1 < end and tokens[start + 1].is_word("STACKED"):  # (MariaDB 10.11's parser has none)
            raise self.syntax(start + 1)
        k = start + 1 + (1 if start + 1 < end and tokens[start + 1].is_word("CURRENT") else 0)
        if k >= end or not tokens[k].is_word("DIAGNOSTICS"):
            return self.refuse("GET")
        k += 1
        number, items = "", _STATEMENT_ITEMS
        if k < end and tokens[k].is_word("CONDITION"):
            if k + 1 >= end or tokens[k + 1].kind not in ("param", "var", "word", "ident"):
                raise self.syntax(k + 1)
            number, items, k = self.span(k + 1, k + 2), _CONDITION_ITEMS, k + 2
        assignments = []
        for a, b in _cut_top(tokens[k:end], self.shape):
            a, b = a + k, b + k
            if b - a != 3 or tokens[a + 1].text != "=" or tokens[a].kind not in ("var", "word", "ident"):
                raise self.syntax(a)
            if not tokens[a + 2].is_word(*items):
                return self.refuse("GET DIAGNOSTICS of " + tokens[a + 2].text)
            target = tokens[a].text
            if tokens[a].kind == "var":
                if target.startswith("@"):
                    return self.refuse("GET DIAGNOSTICS into a system variable")
                target = "@" + target
            assignments.append((target, tokens[a + 2].upper))
        return Step("diagnostics", text=number, assignments=assignments)

    def declare_cursor(self, name: str, params: int = 0) -> None:
        if self.scopes:
            declared = self.scopes[-1].cursors
            if name.lower() in declared:
                raise SQLError(ER_SP_DUP_CURS, name)
            declared[name.lower()] = params

    def select_into(self, start: int, end: int) -> Step | None:
        """SELECT ... INTO name [, name ...] ... of variables (not @user variables, OUTFILE or
        DUMPFILE): the SELECT without its INTO, and the names (`Step.names`)."""
        tokens, depth = self.tokens, 0
        for k in range(start, end):
            tok = tokens[k]
            if tok.kind == "op" and tok.text in "()":
                depth += 1 if tok.text == "(" else -1
            elif depth == 0 and tok.is_word("INTO"):
                names, j = [], k + 1
                while j < end and tokens[j].kind in ("word", "ident") and not tokens[j].is_word("OUTFILE", "DUMPFILE"):
                    names.append(tokens[j].text.strip("`"))
                    if j + 1 < end and tokens[j + 1].text == ",":
                        j += 2
                        continue
                    j += 1
                    break
                if not names:
                    return None
                text = (self.span(start, k) + " " + self.span(j, end)).strip()
                return Step("select_into", text=text, names=names)
        return None

    def if_step(self) -> Step:
        tokens = self.tokens
        branches: list[tuple[str | None, list[Step]]] = []
        self.i += 1  # IF
        while True:
            then = self.top_word(self.i, "THEN")
            condition = self.span(self.i, then)
            self.i = then + 1
            branches.append((condition, self.statements(("ELSEIF", "ELSE", "END"))))
            if self.i >= len(tokens):
                raise SQLError(ER_NOT_SUPPORTED_YET, "this IF in a stored procedure")
            word = tokens[self.i].upper
            self.i += 1
            if word == "ELSEIF":
                continue
            if word == "ELSE":
                branches.append((None, self.statements(("END",))))
                self.i += 1
            break
        self.expect("IF")
        return Step("if", branches=branches)

    def case_step(self) -> Step:
        """CASE [value] WHEN ... THEN ... [ELSE ...] END CASE (the statement, not the expression)."""
        tokens = self.tokens
        self.i += 1  # CASE
        value = ""
        if self.i < len(tokens) and not tokens[self.i].is_word("WHEN"):
            at = self.top_word(self.i, "WHEN")
            value, self.i = self.span(self.i, at), at
        branches: list[tuple[str | None, list[Step]]] = []
        while self.i < len(tokens) and tokens[self.i].is_word("WHEN"):
            then = self.top_word(self.i + 1, "THEN")
            when = self.span(self.i + 1, then)
            self.i = then + 1
            branches.append((when, self.statements(("WHEN", "ELSE", "END"))))
        if not branches:
            raise SQLError(ER_NOT_SUPPORTED_YET, "this CASE in a stored procedure")
        if self.i < len(tokens) and tokens[self.i].is_word("ELSE"):
            self.i += 1
            branches.append((None, self.statements(("END",))))
        self.expect("END", "CASE")
        return Step("case", text=value, branches=branches)

    def compound(self, label: str) -> Step:
        """[label:] BEGIN ... END [label], WHILE cond DO ... END WHILE [label], REPEAT ... UNTIL
        cond END REPEAT [label], LOOP ... END LOOP [label], FOR ... DO ... END FOR [label]
        (`for_head`), its label in scope inside: MariaDB's 1309 for a label already in scope,
        1310 for an end label that is not the beginning's."""
        tokens = self.tokens
        word = tokens[self.i].upper
        lowered = label.lower()
        if label and any(name == lowered for name, _ in self.labels):
            raise SQLError(ER_SP_LABEL_REDEFINE, label)
        self.labels.append((lowered, word != "BEGIN"))
        self.i += 1
        step = Step("block" if word == "BEGIN" else word.lower(), label=label)
        if word == "BEGIN":
            step.steps = self.block_steps()
            self.expect("END")
        elif word == "REPEAT":
            step.steps = self.statements(("UNTIL",))
            self.expect("UNTIL")
            at = self.top_word(self.i, "END")
            step.text, self.i = self.span(self.i, at), at
            self.expect("END", "REPEAT")
        else:
            if word == "FOR":
                at = self.top_word(self.i, "DO")
                self.for_head(step, self.i, at)
                self.i = at + 1
            elif word != "LOOP":
                at = self.top_word(self.i, "DO")
                step.text, self.i = self.span(self.i, at), at + 1
            step.steps = self.statements(("END",))
            self.expect("END", word)
        self.labels.pop()
        if self.i < len(tokens) and tokens[self.i].kind in ("word", "ident"):
            if not label:
                raise self.syntax(self.i)
            end_label = tokens[self.i].text
            self.i += 1
            if end_label.lower() != lowered:
                raise SQLError(ER_SP_LABEL_MISMATCH, end_label)
        return step

    def for_head(self, step: Step, start: int, end: int) -> None:
        """FOR's head, tokens [start, end) before DO: var IN [REVERSE] lower .. upper (a "for"
        step), or record IN cursor [(arguments)] or record IN (SELECT ...) (a "for_cursor" one;
        MariaDB's 1327 for a cursor not declared, 4080 for a count of arguments)."""
        tokens = self.tokens
        if end - start < 3 or tokens[start].kind not in ("word", "ident") or not tokens[start + 1].is_word("IN"):
            raise self.syntax(start)
        step.names = [tokens[start].text]
        k, depth, dots = start + 2, 0, None
        for j in range(k, end - 1):
            if tokens[j].kind == "op" and tokens[j].text in "()":
                depth += 1 if tokens[j].text == "(" else -1
            elif depth == 0 and tokens[j].text == "." and tokens[j + 1].text == ".":
                dots = j
                break
        if dots is not None:
            if tokens[k].is_word("REVERSE"):
                step.type, k = "REVERSE", k + 1
            if dots == k or dots + 2 >= end:
                raise self.syntax(dots)
            step.text, step.default = self.span(k, dots), self.span(dots + 2, end)
            return
        step.kind = "for_cursor"
        if tokens[k].text == "(":
            if closing(tokens, k) != end - 1 or not tokens[k + 1].is_word("SELECT"):
                raise self.syntax(k)
            step.text = self.span(k + 1, end - 1)
            return
        if tokens[k].kind not in ("word", "ident"):
            raise self.syntax(k)
        step.args = self.arguments(k + 1, end)
        if not any(tokens[k].text.lower() in scope.cursors for scope in self.scopes):
            raise SQLError(ER_SP_UNDECLARED_VAR, tokens[k].text)  # (MariaDB reads a name, not a cursor, there)
        step.type = self.cursor_named(tokens[k].text, len(step.args))

    def arguments(self, k: int, end: int) -> list[str]:
        """A cursor's arguments at tokens [k, end): ( expr [, ...] ) or nothing."""
        if k == end:
            return []
        tokens = self.tokens
        if tokens[k].text != "(" or closing(tokens, k) != end - 1:
            raise self.syntax(k)
        return [self.span(a + k + 1, b + k + 1) for a, b in _cut_top(tokens[k + 1:end - 1], self.shape)] \
            if end - k > 2 else []

    def cursor_named(self, name: str, args: int | None = None) -> str:
        """A cursor's name, declared in scope (MariaDB's 1324 for one that is not), opened with
        `args` arguments where given (4080 for another count than its parameters')."""
        params = next((scope.cursors[name.lower()] for scope in reversed(self.scopes)
                       if name.lower() in scope.cursors), None)
        if params is None:
            raise SQLError(ER_SP_CURSOR_MISMATCH, name)
        if args is not None and args != params:
            raise SQLError(ER_WRONG_PARAMCOUNT_TO_CURSOR, name)
        return name

    def block_steps(self) -> list[Step]:
        """A block's steps up to its END, DECLAREs first as MariaDB's grammar wants (1064 for one
        after a statement), variables and conditions before cursors before handlers (1337,
        1338), each variable once (1331)."""
        tokens, steps, names = self.tokens, [], set()
        self.scopes.append(_Scope())
        order = 0  # the declarations read: 0 variables and conditions, 1 a cursor, 2 a handler
        while True:
            while self.i < len(tokens) and tokens[self.i].kind == "op" and tokens[self.i].text == ";":
                self.i += 1
            if self.i >= len(tokens) or tokens[self.i].is_word("END"):
                self.scopes.pop()
                return steps
            at = self.i
            step = self.step()
            if _declaring(step):
                if steps and not _declaring(steps[-1]):
                    raise self.syntax(at)
                declared = _DECLARED_ORDER[step.kind] if step.kind in _DECLARED_ORDER else (
                    2 if "HANDLER" in step.text else 1 if "CURSOR" in step.text else 0)
                if declared < order:
                    raise SQLError(ER_SP_VARCOND_AFTER_CURSHNDLR if declared == 0 else ER_SP_CURSOR_AFTER_HANDLER)
                order = declared
                for name in step.names if step.kind == "declare" else ():
                    if name.lower() in names:
                        raise SQLError(ER_SP_DUP_VAR, name)
                    names.add(name.lower())
            steps.append(step)

    def jump(self) -> Step:
        """LEAVE label / ITERATE label: MariaDB's 1308 for a label not in scope (for ITERATE, a
        loop's)."""
        tokens = self.tokens
        word = tokens[self.i].upper
        end = self.statement_end(self.i)
        if end != self.i + 2:
            raise SQLError(ER_NOT_SUPPORTED_YET, f"this {word} in a stored procedure")
        label = tokens[self.i + 1].text
        self.i = end
        loop = next((loop for name, loop in reversed(self.labels) if name == label.lower()), None)
        if loop is None or word == "ITERATE" and not loop:
            raise SQLError(ER_SP_LILABEL_MISMATCH, word, label)
        return Step(word.lower(), label=label)

    def cursor_step(self, start: int, end: int) -> Step:
        """OPEN cursor, CLOSE cursor, FETCH [[NEXT] FROM] cursor INTO variable [, ...]."""
        tokens = self.tokens
        k = start + 1
        if tokens[start].is_word("FETCH"):
            k += 2 if k + 1 < end and tokens[k].is_word("NEXT") and tokens[k + 1].is_word("FROM") else \
                1 if k < end and tokens[k].is_word("FROM") else 0
        if k >= end or tokens[k].kind not in ("word", "ident"):
            return self.refuse(tokens[start].upper)
        step = Step(tokens[start].upper.lower(), label=tokens[k].text)
        if step.kind == "open":
            step.args = self.arguments(k + 1, end)
        self.cursor_named(step.label, len(step.args) if step.kind == "open" else None)
        if step.kind == "fetch":
            if k + 2 >= end or not tokens[k + 1].is_word("INTO"):
                return self.refuse("FETCH")
            step.names = [tokens[j].text for j in range(k + 2, end, 2)]
        elif step.kind != "open" and k + 1 != end:
            return self.refuse(tokens[start].upper)
        return step

    def handler(self) -> Step:
        """DECLARE {CONTINUE | EXIT | UNDO} HANDLER FOR condition [, ...] statement (its
        statement sees no label outside it, as MariaDB's): `text` CONTINUE or EXIT, `names` its
        conditions ("NOT FOUND", "SQLEXCEPTION", "SQLWARNING", "SQLSTATE xxxxx" or an error code;
        a declared condition's name as its value: 1319 for a name not declared), `steps` its
        statement; MariaDB's 1413 for a condition a handler of the block names already. UNDO is
        MariaDB 10.11's 1064 (its grammar has no UNDO handler)."""
        tokens = self.tokens
        action = tokens[self.i + 1].upper
        if action == "UNDO":  # (MariaDB's grammar has none)
            raise self.syntax(self.i + 1)
        self.i += 2
        self.expect("HANDLER", "FOR")
        others, conditions = False, []
        handled = self.scopes[-1].handled if self.scopes else set()
        while self.i < len(tokens):
            tok = tokens[self.i]
            value, after = self.condition_value(self.i)
            if value:
                self.i = after - 1
            elif tok.is_word("NOT") and self.i + 1 < len(tokens) and tokens[self.i + 1].is_word("FOUND"):
                self.i += 1
                value = "NOT FOUND"
            elif tok.is_word("SQLEXCEPTION", "SQLWARNING"):
                value = tok.upper
            elif tok.kind in ("word", "ident"):
                value = self.named_condition(tok.text.strip("`"))
            else:
                others = True
            if value:
                if value in handled:
                    raise SQLError(ER_SP_DUP_HANDLER)
                handled.add(value)
                conditions.append(value)
            self.i += 1
            if self.i < len(tokens) and tokens[self.i].kind == "op" and tokens[self.i].text == ",":
                self.i += 1
                continue
            break
        if self.i >= len(tokens):
            raise SQLError(ER_NOT_SUPPORTED_YET, "this HANDLER in a stored procedure")
        outer, self.labels = self.labels, []
        statement = self.step()
        self.labels = outer
        if others:
            return self.refuse("DECLARE HANDLER")
        return Step("handler", text=action, names=conditions, steps=[statement])

    def body(self) -> list[Step]:
        """The whole body: one statement, or an (unlabelled) BEGIN ... END's steps."""
        if not self.tokens:
            return []
        step = self.step()
        if self.i < len(self.tokens):
            raise SQLError(ER_NOT_SUPPORTED_YET, "this stored procedure body")
        return step.steps if step.kind == "block" and not step.label else [step]


def _declaring(step: Step) -> bool:
    return step.kind in ("declare", "condition", "cursor", "handler") or step.text.startswith("DECLARE")


_DECLARED_ORDER = {"declare": 0, "condition": 0, "cursor": 1, "handler": 2}


def body_steps(body: str, line: int = 1) -> list[Step]:
    """A procedure body as steps: one statement, or BEGIN ... END of statements (1235 for what
    is not run here); `line`: the line of its CREATE statement the body starts on."""
    parsed = _Body(body, "PROCEDURE", line)
    steps = parsed.body()
    if parsed.refused:
        raise SQLError(ER_NOT_SUPPORTED_YET, f"{parsed.refused[0]} in a stored procedure")
    return steps


def check_body(body: str, kind: str, line: int = 1) -> None:
    """The errors MariaDB's parser gives for a routine's body (starting on the statement's `line`)
    at CREATE: a label redefined (1309), an end label without match (1310), LEAVE / ITERATE
    without a label (1308), RETURN in a procedure (1313), a variable declared twice in a block
    (1331), the declarations' errors (`block_steps`, `condition`, `handler`, `cursor_named`,
    `signalled`), and its 1064 for an end label without a beginning one, a label before what takes
    none, a DECLARE after a statement, a loop or branch without a statement. What is not run here
    is left to CALL (1235)."""
    try:
        parsed = _Body(body, kind, line)
    except SQLError:
        return  # (a text the engine's lexer does not read: left to CALL)
    try:
        parsed.body()
    except SQLError as exc:
        if exc.code != ER_NOT_SUPPORTED_YET.code:
            raise


def named_columns(tokens) -> set[int]:
    """The tokens that name a column where MariaDB's grammar reads no variable: an INSERT's /
    REPLACE's column list, the targets of UPDATE's, INSERT ... SET's and ON DUPLICATE KEY
    UPDATE's assignments, an alias after AS."""
    found: set[int] = set()
    head = tokens[0].upper if tokens else ""
    depth, assigning, listed = 0, False, head not in ("INSERT", "REPLACE")
    for k, tok in enumerate(tokens):
        if tok.kind == "op" and tok.text in "()":
            if tok.text == "(" and depth == 0 and not listed and k and tokens[k - 1].kind in ("word", "ident") \
                    and not tokens[k - 1].is_word("VALUES", "VALUE", "SELECT"):
                close = closing(tokens, k)
                found.update(range(k + 1, close))
                listed = True
            depth += 1 if tok.text == "(" else -1
        elif depth:
            continue
        elif tok.is_word("SET") or tok.is_word("UPDATE") and k >= 2 and tokens[k - 1].is_word("KEY"):
            assigning = head in ("UPDATE", "INSERT", "REPLACE")
            listed = True
        elif tok.is_word("WHERE", "ORDER", "LIMIT", "RETURNING", "ON", "VALUES", "SELECT"):
            assigning = False
            listed = listed or tok.is_word("VALUES", "SELECT")
        elif k and (assigning and k + 1 < len(tokens) and tokens[k + 1].text == "="
                    and (tokens[k - 1].text == "," or tokens[k - 1].is_word("SET", "UPDATE")) or tokens[k - 1].is_word("AS")):
            found.add(k)
    return found


def bind(text: str, values: dict[str, str]) -> str:
    """`text` with each plain identifier (not qualified, not a function's or a column
    definition's name, not a column `named_columns` finds) that is a key of `values`
    (lower-case) replaced by its value's text, and each `record.field` that is one (a cursor FOR
    loop's record's fields: "record.field")."""
    parsed, names = _bindable(text)
    replaced = {}
    for k, name, width in names:
        if name in values:
            replaced[k] = values[name]
            for j in range(k + 1, k + width):
                replaced[j] = ""
    if not replaced:
        return text
    return parsed.span(0, len(parsed.tokens), replaced)


@lru_cache(maxsize=512)
def _bindable(text: str) -> tuple[_Body, tuple[tuple[int, str, int], ...]]:
    """`text` parsed, and the names `bind` may replace (lower-case), each as its first token
    and its count of tokens: a loop's statements are bound again each round, their text the
    same."""
    parsed = _Body(text)
    tokens = parsed.tokens
    names = []
    named: set[int] | None = None
    for k, tok in enumerate(tokens):
        if tok.kind not in ("word", "ident") or k > 0 and tokens[k - 1].text in (".", "@"):
            continue
        if k + 1 < len(tokens) and tokens[k + 1].text == ".":
            if k + 2 < len(tokens) and tokens[k + 2].kind in ("word", "ident") and not (
                    k + 3 < len(tokens) and tokens[k + 3].text in (".", "(")):
                names.append((k, f"{tok.text}.{tokens[k + 2].text}".lower(), 3))
            continue
        if k + 1 < len(tokens) and tokens[k + 1].text == "(":
            continue
        if named is None:
            named = named_columns(tokens)
        if k not in named:
            names.append((k, tok.text.strip("`").lower(), 1))
    return parsed, tuple(names)


# --- calls of stored functions ----------------------------------------------------------------

_EXPANDED_HEADS = ("SELECT", "INSERT", "UPDATE", "DELETE", "REPLACE", "DO", "WITH", "VALUES")
_NAMES_A_TABLE = ("INTO", "INSERT", "REPLACE", "TABLE", "UPDATE", "JOIN", "FROM")  # `t (cols)`, not a call
_ITEM_ENDS = ("FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "INTO", "WINDOW", "FOR")
_INTEGERS = {"tinyint", "smallint", "mediumint", "int", "integer", "bigint"}
_CHARACTERS = {"char", "varchar", "tinytext", "text", "mediumtext", "longtext"}
_REALS = {"double", "float", "real"}


_FUNCTION_KEY = f"{ROUTINE_PREFIX}FUNCTION:"
_MARKER = re.compile(r"\bmysql_(?:returned|assigned)\s*\(", re.I)
_QUALIFIED_CALL = re.compile(r"[\w`]\s*\.\s*(?:\w+|`[^`]+`)\s*\(")
_known: list = [None, frozenset()]  # the last `Engine.routines` asked about (replaced, never changed, on DDL)


def may_call(kept: dict[str, dict[str, Routine]], sql: str) -> bool:
    """Whether `sql` may call a stored function (`expand_calls` has something to do): it names
    one that a database keeps."""
    if "(" not in sql:
        return False
    names = _known[1] if _known[0] is kept else _function_names(kept)
    if names:
        lowered = sql.lower()
        return any(name in lowered for name in names)
    return False


def keeps_functions(kept: dict[str, dict[str, Routine]]) -> bool:
    """Whether a database keeps a stored function: without one `may_call` is False for any text."""
    return bool(_known[1] if _known[0] is kept else _function_names(kept))


def _function_names(kept: dict[str, dict[str, Routine]]) -> frozenset[str]:
    """The names of the stored functions `kept` holds, kept in `_known` for the next question."""
    _known[:] = kept, frozenset(key[len(_FUNCTION_KEY):] for schema in kept.values() for key in schema
                                if key.startswith(_FUNCTION_KEY))
    return _known[1]


def qualified_call_error(sql: str, find, database: str | None) -> SQLError | None:
    """For a statement the engine cannot parse: MariaDB's 1305 where it calls `db.f(...)` that
    db does not keep (the parser's error is then not MariaDB's), else None."""
    if _QUALIFIED_CALL.search(sql) is None:
        return None
    try:
        expand_calls(sql, find, database)
    except SQLError as exc:
        return exc if exc.code == ER_SP_DOES_NOT_EXIST.code else None
    return None


def refuse_markers(sql: str, database: str | None) -> None:
    """MariaDB's 1305 for a client's own call of `expand_calls`' markers (functions it lacks)."""
    lowered = sql.lower()  # (every statement passes here: two substring tests before the regex)
    if ("mysql_returned" not in lowered and "mysql_assigned" not in lowered) or _MARKER.search(sql) is None:
        return
    tokens = _Body(sql).tokens
    for k, tok in enumerate(tokens[:-1]):
        if tok.is_word("MYSQL_RETURNED", "MYSQL_ASSIGNED") and tokens[k + 1].text == "(":
            raise SQLError(ER_SP_DOES_NOT_EXIST, "FUNCTION", f"{database}.{tok.text}" if database else tok.text)


def _cast_type(type_text: str) -> str:
    """The CAST target converting a value as a variable of the declared type holds it (1235 for
    a type not converted here)."""
    column = _column(type_text)
    base = column.base if column is not None else ""
    if base in _INTEGERS:
        return "UNSIGNED" if column.unsigned else "SIGNED"
    if base == "decimal":
        return f"DECIMAL({','.join(column.args or ['10'])})"
    if base in _CHARACTERS:
        return f"CHAR({column.args[0]})" if column.args and base in ("char", "varchar") else "CHAR"
    if base in _REALS:
        return "DOUBLE"
    if base in ("date", "datetime", "time"):
        return base.upper() + (f"({column.args[0]})" if column.args else "")
    raise SQLError(ER_NOT_SUPPORTED_YET, f"a stored function's {type_text} value")


def stored_as(value: str, name: str, type_text: str, routine: Routine | None = None) -> str:
    """`value` as stored into a column `name` of the type (mysql_assigned: MariaDB's 1264, 1366,
    1406 in strict mode, else adjusted with a warning) where `values.target` checks the type, else
    CAST to it. An argument is stored under the caller's sql_mode, the value a `routine` returns
    under the sql_mode it was made with, as MariaDB's."""
    target = _cast_type(type_text)
    if assigned_target(name, type_text, False) is None:
        return f"CAST({value} AS {target})"
    mode = "" if routine is None else ", strict" if "STRICT_" in routine.sql_mode.upper() else ", lax"
    return f"mysql_assigned({value}, {mysql_ident(name)}, {mysql_ident(type_text)}{mode})"


def assigned_target(name: str, type_text: str, lax: bool) -> str | None:
    """mysql_assigned's `mysql_store` key: a column `name` of the declared type, named in errors
    as MariaDB names a routine's variable (``.``.`name`), stored `lax` (adjusted, warned of) or
    strictly; None for a type stored unchecked."""
    column = _column(type_text)
    if column is None:
        raise SQLError(ER_NOT_SUPPORTED_YET, f"a stored function's {type_text} value")
    column.name = name
    return values.target(column, f"``.``.{mysql_ident(name)}", lax)


def returned_type(type_text: str) -> ColumnType:
    """A stored function's value's result column: its RETURNS type's, NULL allowed."""
    column = _column(type_text)
    if column is None:
        raise SQLError(ER_NOT_SUPPORTED_YET, f"a stored function's {type_text} value")
    return declared_type(column.base, column.args, column.unsigned, False)


def _returned(routine: Routine) -> str:
    """The expression of a body `RETURN expr` or `BEGIN RETURN expr; END` (1235 for another)."""
    body = _Body(routine.body)
    tokens = body.tokens
    start, end = 0, len(tokens)
    if tokens and tokens[0].is_word("BEGIN") and tokens[-1].is_word("END"):
        start, end = 1, end - 1
        while end > start and tokens[end - 1].kind == "op" and tokens[end - 1].text == ";":
            end -= 1
    if end - start < 2 or not tokens[start].is_word("RETURN") or body.statement_end(start) < end:
        raise SQLError(ER_NOT_SUPPORTED_YET, "this stored function's body")
    return body.span(start + 1, end)


def _as_definer(returned: str, definer: str) -> str:
    """`returned` with CURRENT_USER [()] read as the DEFINER's account ('user@host'), as a SQL
    SECURITY DEFINER function's body reads it."""
    if "current_user" not in returned.lower():
        return returned
    body = _Body(returned)
    tokens = body.tokens
    account = "@".join(definer_parts(definer)).replace("\\", "\\\\").replace("'", "''")
    replaced: dict[int, str] = {}
    for k, tok in enumerate(tokens):
        if tok.is_word("CURRENT_USER"):
            replaced[k] = f"'{account}'"
            if k + 2 < len(tokens) and tokens[k + 1].text == "(" and tokens[k + 2].text == ")":
                replaced[k + 1] = replaced[k + 2] = ""
    return body.span(0, len(tokens), replaced) if replaced else returned


def body_select(routine: Routine) -> str | None:
    """A function's RETURN expression as a SELECT with its parameters NULL, where it reads tables
    (holds a SELECT): what its body reads, for a privilege check; None where it reads none (1235
    for a body not run here)."""
    returned = _returned(routine)
    if re.search(r"\bSELECT\b", returned, re.I) is None:
        return None
    return "SELECT " + bind(returned, {param.name.lower(): "NULL" for param in routine.parsed})


_EXPRESSION_WORDS = frozenset((
    "NULL TRUE FALSE AND OR XOR NOT IS IN LIKE ESCAPE BETWEEN CASE WHEN THEN ELSE END DIV MOD AS INTERVAL BINARY "
    "COLLATE USING UNKNOWN REGEXP RLIKE SOUNDS SIGNED UNSIGNED INTEGER INT CHAR CHARACTER VARCHAR DECIMAL DOUBLE "
    "DATE DATETIME TIME TIMESTAMP YEAR MONTH DAY HOUR MINUTE SECOND MICROSECOND WEEK QUARTER YEAR_MONTH DAY_HOUR "
    "DAY_MINUTE DAY_SECOND HOUR_MINUTE HOUR_SECOND MINUTE_SECOND CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP "
    "CURRENT_USER LOCALTIME LOCALTIMESTAMP UTC_DATE UTC_TIME UTC_TIMESTAMP FROM FOR LEADING TRAILING BOTH "
    "SEPARATOR ORDER BY ASC DESC DISTINCT").split())


def _check_names(returned: str, values: dict[str, str]) -> None:
    """1235 for a body naming what is neither a parameter nor a word of an expression (a column
    of the calling statement's would be read: MariaDB's is 1054), a subquery's names aside."""
    if re.search(r"\bSELECT\b", returned, re.I):
        return
    tokens = _Body(returned).tokens
    for k, tok in enumerate(tokens):
        if tok.kind not in ("word", "ident") or tok.text.strip("`").lower() in values:
            continue
        if k + 1 < len(tokens) and tokens[k + 1].text in ("(", ".") or k and tokens[k - 1].text == ".":
            continue  # (a function, a qualified name's parts: SQLite or the engine refuses them)
        if tok.kind == "ident" or tok.upper not in _EXPRESSION_WORDS:
            raise SQLError(ER_NOT_SUPPORTED_YET, f"the name {tok.text} in a stored function")


def expand_calls(sql: str, find, database: str | None, called=None) -> str:
    """`sql` (a SELECT, INSERT, UPDATE, DELETE, REPLACE, DO or WITH; else as it is) with each call
    of a stored function written out (see the module's header): `find(schema, name)` the stored
    function or None. An unqualified name names the database's function (else it is left to the
    engine: a built-in one, or its 1305); `db.f(...)` 1305 when db keeps no f. A select item that
    is a call alone is named as written, as MariaDB names its column. `called(schema, name,
    function, within)`, where given, hears of each call found: the name as written and the
    functions whose bodies it is in, outermost first (() for the statement's own call)."""
    head = sql.lstrip()[:8].upper()
    if not head.startswith(_EXPANDED_HEADS) or "(" not in sql:
        return sql
    return _expand(sql, find, database, (), True, database, called)


def _expand(sql: str, find, database: str | None, stack: tuple[Routine, ...], top: bool, home: str | None,
            called) -> str:
    """`expand_calls` of `sql`, whose unqualified calls name `database`'s functions, inside the
    calls of `stack`; `home`: the statement's database, where the tables it names are found."""
    body = _Body(sql)
    tokens = body.tokens
    edits: list[tuple[int, int, str]] = []  # tokens[start:end] written as the text
    k = 0
    while k < len(tokens):
        tok = tokens[k]
        if not (k + 1 < len(tokens) and tokens[k + 1].kind == "op" and tokens[k + 1].text == "("
                and tok.kind in ("word", "ident")):
            k += 1
            continue
        start, schema = k, database
        qualified = k >= 2 and tokens[k - 1].text == "." and tokens[k - 2].kind in ("word", "ident")
        if qualified:
            start, schema = k - 2, tokens[k - 2].text.strip("`")
        elif k and tokens[k - 1].text == ".":
            k += 1
            continue
        if start and tokens[start - 1].is_word(*_NAMES_A_TABLE) or schema is None:
            k += 1
            continue
        name = tok.text.strip("`")
        routine = find(schema, name)
        if routine is None:
            if qualified:
                raise SQLError(ER_SP_DOES_NOT_EXIST, "FUNCTION", f"{schema}.{name}")
            k += 1
            continue
        if any(routine.key == outer.key for outer in stack):  # MariaDB's 1424 (recursion): not run here
            raise SQLError(ER_NOT_SUPPORTED_YET, "a recursive stored function")
        if called is not None:
            called(schema, name, routine, stack)
        close = closing(tokens, k + 1)
        args = [] if close == k + 2 else [
            _expand(body.span(a + k + 2, b + k + 2), find, database, stack, False, home, called)
            for a, b in _cut_top(tokens[k + 2:close], body.shape)]
        check_arguments(routine, len(args))
        values = {p.name.lower(): stored_as(f"({arg})", p.name, p.type)
                  for p, arg in zip(routine.parsed, args, strict=True)}
        returned = _returned(routine)
        if routine.security == "DEFINER":
            returned = _as_definer(returned, routine.definer)
        if re.search(r"\bSELECT\b", returned, re.I) and (routine.schema != home or not all(
                tok.kind in ("param", "op", "var") or tok.is_word("NULL", "TRUE", "FALSE")
                for tok in tokens[k + 2:close])):
            # its tables are its database's, not the statement's; a column of the statement as an
            # argument would be read as the subquery's own column of that name
            raise SQLError(ER_NOT_SUPPORTED_YET, "a stored function reading tables with these arguments")
        _check_names(returned, values)
        inner = _expand(bind(returned, values), find, routine.schema, (*stack, routine), False, home, called)
        value = stored_as(f"({inner})", body.span(start, close + 1), routine.returns, routine)
        edits.append((start, close + 1, f"mysql_returned({value}, {mysql_ident(routine.returns)})"))
        k = close + 1
    if not edits:
        return sql
    if top:
        edits = sorted(edits + _item_names(body, [start for start, _, _ in edits]))
    out, at = [], 0
    for start, end, text in edits:
        out.append(body.span(at, start) if start > at else "")
        out.append(" " + text + " ")
        at = end
    if at < len(tokens):
        out.append(body.span(at, len(tokens)))
    return "".join(out)


def _item_names(body: _Body, calls: list[int]) -> list[tuple[int, int, str]]:
    """The aliases that name each select item holding a call at a token of `calls` (without its
    own alias) as written, as MariaDB names its column: insertions after the item."""
    tokens = body.tokens
    found, depth, first, in_items = [], 0, None, False

    def item_end(last: int) -> None:
        if first is None or last < first or not any(first <= c <= last for c in calls):
            return
        named = last - first >= 2 and tokens[last - 1].is_word("AS") or tokens[last].kind in ("word", "ident") \
            and last > first and (tokens[last - 1].text == ")" or tokens[last - 1].kind in ("word", "ident", "param"))
        if not named:
            found.append((last + 1, last + 1, "AS " + mysql_ident(body.span(first, last + 1))))

    for k, tok in enumerate(tokens):
        if tok.kind == "op" and tok.text in "()":
            depth += 1 if tok.text == "(" else -1
        elif depth == 0 and tok.is_word("SELECT"):
            in_items, first = True, k + 1
        elif depth == 0 and in_items and (tok.text == "," or tok.is_word(*_ITEM_ENDS)):
            item_end(k - 1)
            in_items = tok.text == ","
            first = k + 1
        elif in_items and k == first and tok.is_word("DISTINCT", "ALL", "STRAIGHT_JOIN", "SQL_CALC_FOUND_ROWS"):
            first = k + 1
    if in_items:
        item_end(len(tokens) - 1)
    return found
