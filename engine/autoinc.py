"""AUTO_INCREMENT ids within one INSERT / REPLACE statement, as MariaDB 10.11 hands them out on
InnoDB with its default `innodb_autoinc_lock_mode=1` ("consecutive").

Why it matters beyond looks: a statement-format binlog carries only the statement's first id
(INSERT_ID); a replica runs the statement again from it with its own rules for the rest. A
MariaDB replica of ours, or ours as a MariaDB master's replica, gives every row the master's id
only when both follow these rules, an ignored row's id included.

The rules (sql/handler.cc `handler::update_auto_increment`, `restore_auto_increment`,
`adjust_next_insert_id_after_explicit_value`; storage/innobase `ha_innobase::get_auto_increment`,
`write_row`):
- A row that leaves its id to AUTO_INCREMENT takes the statement's next id. When none is
  reserved the statement reserves an interval from the table's counter and moves the counter
  past it: as many values as the VALUES list has rows; for INSERT ... SELECT (rows unknown) 1,
  then 2, 4, ... up to 65535 at a time (the gap a SELECT leaves after it). InnoDB keeps the
  statement's rows left (`n_autoinc_rows`, one less per row of any kind): a later interval of the
  statement is that many values when some are left.
- A row that gives its own id moves the statement's next id past it (once an interval is
  reserved), and the table's counter past it when it is written.
- A row left out by IGNORE, or that updated a row instead (ON DUPLICATE KEY UPDATE), gives its
  id back: the statement's next row takes it.
- The counter never goes back: ids of a failed or rolled-back statement are not reused.
- What survives a restart is the largest id a row took or gave (`top`), as InnoDB keeps it in the
  clustered index's root page (MDEV-6076, `btr_write_autoinc`, written with each row it inserts,
  kept when the row fails or is rolled back), not the intervals reserved past it.
On a replica the first id is the binlog's (`forced`): the rows count on from it, unreserved.
"""

from __future__ import annotations

_INTERVAL_MAX = 65535  # AUTO_INC_DEFAULT_NB_MAX
_UNBOUNDED = 1 << 64


class StatementIds:
    """One statement's ids: `take()` before a row that leaves its id to AUTO_INCREMENT,
    `given(value)` before a row with its own, `done(written)` after each row; `counter` is the
    table's next id, `first` the statement's first id handed out (the binlog's INSERT_ID), `top`
    the largest id a row took or gave (0 before any)."""

    __slots__ = ("counter", "first", "top", "_estimate", "_forced", "_next", "_end", "_left", "_intervals",
                 "_before", "_row", "_back")

    def __init__(self, counter: int, estimate: int, forced: int | None = None):
        self.counter = counter
        self.first: int | None = None
        self.top = 0
        self._estimate = estimate  # the VALUES list's rows; 0 for INSERT ... SELECT
        self._forced = forced
        self._next = 0  # the statement's next id; 0 before its first interval
        self._end = 0  # one past the reserved interval
        self._left = 0  # InnoDB's n_autoinc_rows
        self._intervals = 0
        self._before = 0  # the statement's next id before this row
        self._row = 0  # this row's id
        self._back = 0  # where a row left out sends the next id when none was before it

    def take(self) -> int:
        self._before = self._next
        if self._forced is not None:
            self._next, self._end, self._forced = self._forced, _UNBOUNDED, None
        elif self._next == 0 or self._next >= self._end:
            if self._estimate:
                wanted = self._estimate
            else:
                wanted = min(1 << self._intervals, _INTERVAL_MAX) if self._intervals <= 16 else _INTERVAL_MAX
            self._intervals += 1
            if self._left == 0:
                self._left = wanted
            self._next, self._end = self.counter, self.counter + self._left
            self.counter = self._end
        self._row = self._back = self._next
        self._next += 1
        if self._row > self.top:
            self.top = self._row
        if self.first is None:
            self.first = self._row
        return self._row

    def given(self, value: int) -> None:
        self._before, self._row, self._back = self._next, value, 0
        if value > self.top:
            self.top = value
        if self._next and value >= self._next:
            self._next = value + 1

    def done(self, written: bool) -> None:
        if self._left > 0:
            self._left -= 1
        if written:
            if self._row >= self.counter:
                self.counter = self._row + 1
        else:
            self._next = self._before or self._back


def select_reservation(rows: int) -> int:
    """The ids an INSERT ... SELECT that wrote `rows` rows, each with an id of its own, took from
    the table's counter: its intervals (1, 2, 4, ... 65535) until they cover the rows."""
    total = taken = 0
    while total < rows:
        total += min(1 << taken, _INTERVAL_MAX) if taken <= 16 else _INTERVAL_MAX
        taken += 1
    return total
