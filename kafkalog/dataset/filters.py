"""Filter pushdown: which filters kafkalog applies itself (Spark 4.1+'s `DataSourceReader.pushFilters`).

Comparisons (=, <, <=, >, >=) and IN on `offset`, `timestamp`, `partition` and
`topic` are handled: planning uses them to skip partitions, segments and byte
ranges (through the offset and time indexes, as the offset options do), and
the reader applies each one exactly to its rows, with SQL's null semantics (a
row whose column is null does not pass). Every other filter is handed back to
Spark, so results are always exact.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

#: column -> Python type of a literal we can compare exactly
_COLUMNS = {"offset": int, "partition": int, "topic": str, "timestamp": dt.datetime}
_OPS = {"EqualTo": "eq", "GreaterThan": "gt", "GreaterThanOrEqual": "ge", "LessThan": "lt",
        "LessThanOrEqual": "le", "In": "in"}
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


@dataclass(frozen=True)
class Condition:
    column: str
    op: str
    #: int for offset/partition, str for topic, UTC microseconds for timestamp; a tuple for "in"
    value: Any


@dataclass(frozen=True)
class Pushed:
    """The filters kafkalog applies itself (all of them, ANDed)."""

    conditions: tuple[Condition, ...] = ()

    def wants(self, topic: str | None, partition: int | None) -> bool:
        """False when no row of this topic-partition can pass."""
        for c in self.conditions:
            value = {"topic": topic, "partition": partition}.get(c.column, ...)
            if value is ... :
                continue
            if value is None or not _holds(c, value):
                return False
        return True

    def offset_bounds(self) -> tuple[int | None, int | None]:
        """(first offset, end offset exclusive) that every passing row lies in."""
        return _bounds(self.conditions, "offset")

    def timestamp_bounds_ms(self) -> tuple[int | None, int | None]:
        lo, hi = _bounds(self.conditions, "timestamp")
        # Microseconds to the milliseconds Kafka stores: a row's timestamp is ms * 1000.
        return (None if lo is None else -(-lo // 1000)), (None if hi is None else -(-hi // 1000))

    def mask(self, arrow_batch: pa.RecordBatch) -> pa.Array | None:
        """Rows of an output Arrow batch that pass every condition (null compares false)."""
        if not self.conditions:
            return None
        import pyarrow.compute as pc  # (start-up: only for the reads with conditions)

        keep = None
        for c in self.conditions:
            col = arrow_batch.column(c.column)
            if c.column == "timestamp":
                col = col.cast(pa.int64())
            if c.op == "in":
                m = pc.is_in(col, value_set=pa.array(list(c.value), type=col.type))
                m = pc.if_else(pc.is_null(col), pa.scalar(None, pa.bool_()), m)
            else:
                m = getattr(pc, {"eq": "equal", "gt": "greater", "ge": "greater_equal", "lt": "less",
                                 "le": "less_equal"}[c.op])(col, pa.scalar(c.value, type=col.type))
            keep = m if keep is None else pc.and_kleene(keep, m)
        return None if keep is None else pc.fill_null(keep, False)


#: No pushed filters: every row passes.
NO_FILTERS = Pushed()


def _holds(c: Condition, value: Any) -> bool:
    v = c.value
    return {"eq": lambda: value == v, "gt": lambda: value > v, "ge": lambda: value >= v, "lt": lambda: value < v,
            "le": lambda: value <= v, "in": lambda: value in v}[c.op]()


def _bounds(conditions, column: str) -> tuple[int | None, int | None]:
    lo = hi = None
    for c in conditions:
        if c.column != column:
            continue
        if c.op == "in":
            a, b = min(c.value), max(c.value) + 1
        else:
            a = {"eq": c.value, "gt": c.value + 1, "ge": c.value}.get(c.op)
            b = {"eq": c.value + 1, "lt": c.value, "le": c.value + 1}.get(c.op)
        if a is not None:
            lo = a if lo is None else max(lo, a)
        if b is not None:
            hi = b if hi is None else min(hi, b)
    return lo, hi


def _literal(column: str, value: object) -> object:
    """The literal in our terms, or ... when we cannot compare it exactly."""
    kind = _COLUMNS[column]
    if kind is int:
        return value if isinstance(value, int) and not isinstance(value, bool) else ...
    if kind is str:
        return value if isinstance(value, str) else ...
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        delta = value - _EPOCH
        return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    return ...  # a naive datetime's zone is not known here: leave it to Spark


def translate(filters) -> tuple[Pushed, list]:
    """(what kafkalog applies, the filters Spark must still apply)."""
    handled: list[Condition] = []
    rest = []
    for f in filters:
        op = _OPS.get(type(f).__name__)
        attribute = getattr(f, "attribute", None)
        column = attribute[0] if isinstance(attribute, tuple) and len(attribute) == 1 else None
        if op is None or column not in _COLUMNS:
            rest.append(f)
            continue
        if op == "in":
            values = tuple(_literal(column, v) for v in f.value)
            if not values or any(v is ... for v in values):
                rest.append(f)
                continue
            handled.append(Condition(column, op, values))
        else:
            value = _literal(column, f.value)
            if value is ...:
                rest.append(f)
                continue
            handled.append(Condition(column, op, value))
    return Pushed(tuple(handled)), rest
