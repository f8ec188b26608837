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

auto_increment_increment / auto_increment_offset (`Step`, the statement's session's, a replica's
from the binlog's Q_AUTO_INCREMENT): ids are the values offset + k * increment. A statement's next
id is the smallest of them past the last (sql/handler.cc `compute_next_insert_id`, in unsigned
64-bit arithmetic: with an offset above the increment the first ids wrap, 3, 6, 7 for 3 and 7);
an interval is reserved from the table's counter rounded so, spans n increments, and moves the
counter past it (`innobase_next_autoinc`, where an offset above the increment counts as 0), as
a row's own id does (`ha_innobase::write_row`). Left out: InnoDB's
lowering of the counter when a table handle last used a larger increment than the statement's
(`ha_innobase::get_auto_increment`, which depends on which cached handle the statement gets).
"""

from __future__ import annotations

_INTERVAL_MAX = 65535  # AUTO_INC_DEFAULT_NB_MAX
_UNBOUNDED = 1 << 64
_ULONGLONG = (1 << 64) - 1

Step = tuple[int, int]  # (auto_increment_increment, auto_increment_offset)
ONE: Step = (1, 1)


def next_insert_id(nr: int, step: Step) -> int:
    """The statement's next id after `nr` (`compute_next_insert_id`, in MariaDB's unsigned
    64-bit arithmetic): the smallest offset + k * increment above it; past the range, ULONGLONG."""
    increment, offset = step
    if increment == 1:
        nxt = nr + 1
    else:
        nxt = (((nr + increment - offset) & _ULONGLONG) // increment * increment + offset) & _ULONGLONG
    return _ULONGLONG if nxt <= nr else nxt


def counter_past(current: int, need: int, step: Step) -> int:
    """The table's counter after `need` values from `current` (`innobase_next_autoinc`): past an
    interval reserved at `current`, or (`need` 1) past a row's own id."""
    increment, offset = step
    if offset > increment:
        offset = 0
    nxt = current - offset if current > offset else offset - current
    nxt = nxt - nxt % increment + offset + need * increment
    return min(nxt, _ULONGLONG)


class StatementIds:
    """One statement's ids: `take()` before a row that leaves its id to AUTO_INCREMENT,
    `given(value)` before a row with its own, `done(written)` after each row; `counter` is the
    table's next id, `first` the statement's first id handed out (the binlog's INSERT_ID), `top`
    the largest id a row took or gave (0 before any); `step` the session's increment and offset."""

    __slots__ = ("counter", "first", "top", "_estimate", "_forced", "_next", "_end", "_left", "_intervals",
                 "_before", "_row", "_back", "_step", "_last")

    def __init__(self, counter: int, estimate: int, forced: int | None = None, step: Step = ONE):
        self.counter = counter
        self._step = step
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
        self._last = 0  # the counter past the last interval reserved (InnoDB's autoinc_last_value)

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
            if self._step == ONE:
                self._next, self._end = self.counter, self.counter + self._left
                self.counter = self._end
            else:  # (the counter rounded to the step first, as InnoDB rounds it, then past the interval)
                first = next_insert_id(self.counter - 1, self._step)
                self._last = counter_past(first, self._left, self._step)
                self.counter = max(self.counter, self._last)
                self._next, self._end = first, first + self._left * self._step[0]
        self._row = self._back = self._next
        self._next = self._next + 1 if self._step == ONE else next_insert_id(self._next, self._step)
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
            self._next = next_insert_id(value, self._step)

    def done(self, written: bool) -> None:
        if self._left > 0:
            self._left -= 1
        if written:
            if self._step != ONE:
                if self._row >= self._last:
                    self.counter = max(self.counter, counter_past(self._row, 1, self._step))
            elif self._row >= self.counter:
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
