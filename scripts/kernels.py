#!/usr/bin/env python3
"""The columnar kernel generator: numba and Cython code for the fast path, derived from the same .ksy specs.

    python scripts/generate.py        # writes generated/kafka_kernels.py and .pxi with the Kaitai parsers

Two dialects of the same functions: `Numba` (generated/kafka_kernels.py, compiled at run time) and
`Cython` (generated/kafka_kernels.pxi, `cdef inline` functions without the GIL that
kafkalog/fast/engine.pyx includes and setuptools compiles at install). The dialect decides only how a
byte is read, a column stored and a function declared; the parsing, the checks and the error codes
are the same text, so the two stay equal by construction.

The Kaitai Struct compiler turns each spec into an object parser (one Python
object per record, header and varint). This generator reads the same specs and
writes, for each type the fast path needs, a numba function that parses one
instance of it from a uint8 array and stores every field in a column of an int64
table (`t[column, row]`, so that a column is a contiguous array): integers as their value, byte fields as their position and size, a
repeated type as the first row and the count of its own table. A whole records
section is then walked by calling such a function in a compiled loop
(`kafkalog.fast.kernels`), with no Python object per record.

It supports exactly the subset of Kaitai Struct these specs use, and refuses
anything else with a message naming the spec, the type, the field and the
construct:

* integers `u1 s1 u2 s2 u4 s4 s8` (big- or little-endian) and bit fields `bN`
  in byte-aligned groups;
* the zigzag varint type `kafka_varint`, whose maximum length and the rule
  that its last byte has no continuation bit are read from its spec;
* byte fields sized by an expression or by the end of the stream (`size`,
  `size-eos`), optionally with `if`, and optionally parsed as a user type in
  a substream of that size;
* user types read in place, and `repeat: expr` of a user type (a table of its
  own);
* `valid` (`min`, `max`, `any-of`, `eq`, `expr`), `enum` (kept as the
  integer), and `value` instances (not needed by the kernels: skipped).

Expressions may use integer literals, the fields read before (`x`,
`x.value` of a varint, `x.y` of a type read in place), `_` in `valid.expr`,
enum members (`compression::none`), `+ - *`, comparisons, `and`, `or`, `not`
and parentheses.

A field that the kernels must not descend into, because its content reaches
them through the codec glue (compressed records, a wrapper's inner messages),
is listed in `OPAQUE` with the reason, and is stored as a position and size.

Error codes: 0 is success, 1 means a table is full (the caller grows it and
parses the same instance again), and every other code is one place where the
data is not what the spec says: `ERRORS[code]` names the spec, type, field and
what failed. The kernels never decide what to tell a user: on any error the
runtime asks the Kaitai parser (the reference) about that instance.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "schemas"
MODULE = "kafka_kernels"

#: The types the fast path parses: (spec, type path inside it, or "" for the spec's root type).
ROOTS = [
    ("kafka_record", ""),
    ("kafka_record_batch", ""),
    ("kafka_message_set", "entry"),
    ("kafka_control_record", ""),
    ("kafka_offset_index", "index_entry"),
    ("kafka_time_index", "time_index_entry"),
]

#: Fields stored as a position and size only, with the reason the kernels do not parse them.
OPAQUE = {
    ("kafka_record_batch", "", "records_data"):
        "the records, compressed or not: the runtime hands their bytes to kafka_record after the codec glue",
    ("kafka_message_set", "message", "compressed_value"):
        "a wrapper's compressed inner message set: the runtime hands it to kafka_message_set::entry "
        "after the codec glue",
}

VARINT_SPEC = "kafka_varint"

INT_TYPES = {"u1": (1, False), "s1": (1, True), "u2": (2, False), "s2": (2, True),
             "u4": (4, False), "s4": (4, True), "s8": (8, True)}

# What a failed check is called in ERRORS.
EOF, NEGATIVE_SIZE, VALID_MIN, VALID_MAX, VALID_ANY_OF, VALID_EQ, VALID_EXPR, VARINT_TOO_LONG = (
    "data ends early", "negative size", "valid min", "valid max", "valid any-of", "valid eq", "valid expr",
    "varint too long")

_KNOWN_FIELD_KEYS = {"id", "type", "size", "size-eos", "if", "repeat", "repeat-expr", "valid", "enum", "doc",
                     "doc-ref", "-webide-representation"}
_KNOWN_TYPE_KEYS = {"seq", "types", "enums", "instances", "doc", "doc-ref", "-webide-representation", "meta"}


# Stands for ", row1, row2, ..." in a return until a function's child tables are all known.
ROWS = "<rows>"


class UnsupportedConstruct(Exception):
    """A spec uses something the kernel generator does not compile."""


@dataclass
class Spec:
    name: str
    data: dict
    endian: str

    def type_def(self, path: str) -> dict:
        if not path:
            return self.data
        node = self.data
        for part in path.split("::"):
            node = node.get("types", {}).get(part)
            if node is None:
                raise KeyError(path)
        return node


@dataclass
class Table:
    """The rows one type's instances are stored in."""

    name: str  # e.g. "kafka_record", "kafka_record::header"
    spec: str
    path: str
    columns: list[str] = field(default_factory=list)
    children: list[Table] = field(default_factory=list)  # tables of types repeated inside it, in order

    @property
    def func(self) -> str:
        return "parse_" + self.name.replace("::", "__")

    @property
    def const_prefix(self) -> str:
        return self.name.replace("::", "__").upper()

    def all_children(self) -> list[Table]:
        out: list[Table] = []
        for child in self.children:
            out.append(child)
            out.extend(child.all_children())
        return out


class Generator:
    def __init__(self, schemas: Path = SCHEMAS):
        self.schemas = schemas
        self.specs: dict[str, Spec] = {}
        self.errors: list[tuple[str, str, str, str, str]] = [("", "", "", "ok", ""), ("", "", "", "table full", "")]
        self.functions: list[str] = []
        self.tables: list[Table] = []
        self.varint_len = 0
        self.dialect: Numba | Cython = NUMBA

    # -- specs ---------------------------------------------------------------------------------------------------

    def spec(self, name: str) -> Spec:
        if name not in self.specs:
            path = self.schemas / f"{name}.ksy"
            if not path.exists():
                raise UnsupportedConstruct(f"spec {name}: no file {path.name} in {self.schemas}")
            data = yaml.safe_load(path.read_text())
            self.specs[name] = Spec(name, data, data.get("meta", {}).get("endian", "be"))
        return self.specs[name]

    def resolve(self, spec: Spec, type_path: str, ref: str) -> tuple[Spec, str]:
        """The spec and type path a type reference in `spec` at `type_path` names (Kaitai's lookup rules)."""
        if "::" in ref:
            head, rest = ref.split("::", 1)
            if head in spec.data.get("meta", {}).get("imports", []):
                return self.spec(head), rest
        parts = type_path.split("::") if type_path else []
        # A nested type is looked up from the innermost enclosing type outwards.
        for depth in range(len(parts), -1, -1):
            scope = "::".join(parts[:depth])
            candidate = f"{scope}::{ref}" if scope else ref
            try:
                spec.type_def(candidate)
                return spec, candidate
            except KeyError:
                pass
        if ref in spec.data.get("meta", {}).get("imports", []):
            return self.spec(ref), ""
        raise UnsupportedConstruct(f"spec {spec.name}: type {ref!r} is not defined or imported")

    # -- the varint primitive ------------------------------------------------------------------------------------

    def varint_function(self) -> str:
        spec = self.spec(VARINT_SPEC)
        seq = spec.data["seq"]
        for i, f in enumerate(seq):
            if f.get("type") != "u1" or f.get("id") != f"b{i}":
                raise UnsupportedConstruct(f"spec {VARINT_SPEC}: field {f.get('id')}: expected b{i} of type u1, "
                                           "one byte per field, to read it as the zigzag varint primitive")
        last = seq[-1].get("valid", {})
        if last.get("max") != 0x7F:
            raise UnsupportedConstruct(f"spec {VARINT_SPEC}: field {seq[-1]['id']}: expected valid max 0x7f "
                                       "(no continuation bit on the last byte)")
        self.varint_len = len(seq)
        return self.dialect.varint(len(seq))

    # -- errors --------------------------------------------------------------------------------------------------

    def error(self, spec: str, type_path: str, fid: str, kind: str, detail: str = "") -> int:
        self.errors.append((spec, type_path, fid, kind, detail))
        return len(self.errors) - 1

    # -- tables and functions ------------------------------------------------------------------------------------

    def compile_roots(self) -> None:
        for spec_name, path in ROOTS:
            spec = self.spec(spec_name)
            name = spec_name + (f"::{path}" if path else "")
            table = Table(name, spec_name, path)
            self.tables.append(table)
            self.compile_table(spec, path, table)

    def compile_table(self, spec: Spec, path: str, table: Table) -> None:
        body: list[str] = []
        ctx = _Context(self, spec, path, table, body)
        ctx.emit_type(spec, path, prefix="", end="end", indent=1)
        kids = table.all_children()
        args = ", ".join(["buf", "pos", "end", "t", "row"] + [f"t{i + 1}, row{i + 1}" for i in range(len(kids))])
        rows = "".join(f", row{i + 1}" for i in range(len(kids)))
        where = f"{spec.name}.ksy" + (f", type {path}" if path else "")
        doc = (f'    """One {table.name} ({where}) from buf[pos:end] into row `row` of table `t`'
               + (f"; rows of {', '.join(k.name for k in kids)} from row{'s' if len(kids) > 1 else ''} "
                  f"{', '.join(f'row{i + 1}' for i in range(len(kids)))} of t{', t'.join(str(i + 1) for i in range(len(kids)))}"
                  if kids else "")
               + f'.\n    Returns (error code, position after it{rows and ", next free row of each child table"}).'
               + '"""')
        self.functions.append("\n".join([
            "",
            "",
            *self.dialect.function_head(table.func, args, len(kids)),
            doc,
            *self.dialect.function_prologue(),
            *(line.replace(ROWS, rows) for line in body),
            f"    return 0, pos{rows}",
        ]))

    # -- output --------------------------------------------------------------------------------------------------

    def source(self, dialect: Numba | Cython | None = None) -> str:
        if dialect is not None:
            self.dialect = dialect
        self.compile_roots()
        varint = self.varint_function()
        out = [self.dialect.header.format(specs=", ".join(sorted(f"{s}.ksy" for s in self.specs)))]
        out.append("# Columns of each table, in order; `<field>.pos`/`.size` for byte fields (size -1 when the")
        out.append("# field's `if` is false), `.first`/`.count` for repeated types (rows of the child table),")
        out.append("# 0 for an integer whose `if` is false.")
        out.append("TABLES = {")
        for t in self.tables:
            self._table_lines(t, out)
        out.append("}")
        out.append("")
        out.extend(self.dialect.constants_open)
        for t in self.tables:
            self._const_lines(t, out)
        out.append("")
        out.append("#: Error codes: (spec, type, field, what failed, detail); 0 is success, 1 a full table.")
        out.append("ERRORS = (")
        for e in self.errors:
            out.append(f"    {e!r},")
        out.append(")")
        out.append(self.dialect.prelude)
        out.append(varint)
        out.extend(self.functions)
        return "\n".join(out) + "\n"

    def _table_lines(self, t: Table, out: list[str]) -> None:
        out.append(f"    {t.name!r}: (")
        for c in t.columns:
            out.append(f"        {c!r},")
        out.append("    ),")
        for child in t.children:
            self._table_lines(child, out)

    def _const_lines(self, t: Table, out: list[str]) -> None:
        for i, c in enumerate(t.columns):
            out.append(f"{self.dialect.constant_indent}{_const(t, c)} = {i}")
        out.append(f"{self.dialect.constant_indent}{t.const_prefix}__WIDTH = {len(t.columns)}")
        for child in t.children:
            self._const_lines(child, out)


def _const(table: Table, column: str) -> str:
    return table.const_prefix + "__" + column.replace(".", "__").upper()


class _Context:
    """Emits the body of one table's function."""

    def __init__(self, gen: Generator, spec: Spec, path: str, table: Table, body: list[str]):
        self.gen, self.table, self.body = gen, table, body
        self.root_spec, self.root_path = spec, path
        self.kid_index = {}  # Table name -> 1-based argument number
        self.counter = 0

    def line(self, indent: int, text: str) -> None:
        self.body.append("    " * indent + text)

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def where(self, spec: Spec, type_path: str, fid: str) -> str:
        return f"spec {spec.name}, type {type_path or spec.name}, field {fid}"

    def column(self, name: str) -> str:
        self.table.columns.append(name)
        return _const(self.table, name)

    def fail(self, indent: int, spec: Spec, type_path: str, fid: str, kind: str, detail: str = "") -> None:
        code = self.gen.error(spec.name, type_path, fid, kind, detail)
        self.line(indent, f"return {code}, pos{ROWS}")

    # A type's fields are read in place: `prefix` names its columns and local variables.
    def emit_type(self, spec: Spec, type_path: str, prefix: str, end: str, indent: int) -> None:
        tdef = spec.type_def(type_path)
        for key in tdef:
            if key not in _KNOWN_TYPE_KEYS:
                raise UnsupportedConstruct(f"spec {spec.name}, type {type_path or spec.name}: {key!r} is not "
                                           "supported by the kernel generator")
        if "params" in tdef:
            raise UnsupportedConstruct(f"spec {spec.name}, type {type_path}: params are not supported")
        for iid, inst in (tdef.get("instances") or {}).items():
            if set(inst) - {"value", "doc", "doc-ref"}:
                raise UnsupportedConstruct(f"spec {spec.name}, type {type_path or spec.name}, instance {iid}: only "
                                           "value instances are supported (and skipped)")
        scope: dict[str, str] = {}  # field id -> local variable holding its value (ints, varints)
        enums = spec.data.get("enums", {})
        seq = tdef.get("seq", [])
        i = 0
        while i < len(seq):
            f = seq[i]
            if isinstance(f.get("type"), str) and re.fullmatch(r"b\d+", f["type"]):
                j = i
                while j < len(seq) and isinstance(seq[j].get("type"), str) and re.fullmatch(r"b\d+", seq[j]["type"]):
                    j += 1
                self.emit_bits(spec, type_path, seq[i:j], prefix, end, indent, scope)
                i = j
                continue
            self.emit_field(spec, type_path, f, prefix, end, indent, scope, enums)
            i += 1

    def emit_bits(self, spec, type_path, fields, prefix, end, indent, scope) -> None:
        widths = [int(f["type"][1:]) for f in fields]
        total = sum(widths)
        if total % 8:
            raise UnsupportedConstruct(f"{self.where(spec, type_path, fields[-1]['id'])}: bit fields must fill whole "
                                       f"bytes ({total} bits)")
        nbytes = total // 8
        self.line(indent, f"if {end} - pos < {nbytes}:")
        self.fail(indent + 1, spec, type_path, fields[0]["id"], EOF)
        word = self.fresh("bits")
        self.line(indent, f"{word} = _uint_be(buf, pos, {nbytes})")
        self.line(indent, f"pos += {nbytes}")
        shift = total
        for f, w in zip(fields, widths):
            self._check_field_keys(spec, type_path, f)
            if "if" in f or "valid" in f or "size" in f or "repeat" in f:
                raise UnsupportedConstruct(f"{self.where(spec, type_path, f['id'])}: if/valid/size/repeat on a bit "
                                           "field are not supported")
            shift -= w
            var = _var(prefix, f["id"])
            self.line(indent, f"{var} = ({word} >> {shift}) & {(1 << w) - 1}")
            self.line(indent, f"{self.cell(self.column(prefix + f['id']))} = {var}")
            scope[f["id"]] = var

    def _check_field_keys(self, spec, type_path, f) -> None:
        if "id" not in f:
            raise UnsupportedConstruct(f"spec {spec.name}, type {type_path or spec.name}: a seq field without an id")
        for key in f:
            if key not in _KNOWN_FIELD_KEYS:
                raise UnsupportedConstruct(f"{self.where(spec, type_path, f['id'])}: {key!r} is not supported by the "
                                           "kernel generator")

    def emit_field(self, spec, type_path, f, prefix, end, indent, scope, enums) -> None:
        self._check_field_keys(spec, type_path, f)
        fid = f["id"]
        col = prefix + fid
        where = self.where(spec, type_path, fid)
        expr = lambda text: self.expr(text, spec, type_path, scope, enums, where)  # noqa: E731
        opaque = OPAQUE.get((spec.name, type_path, fid))
        ftype = f.get("type")
        if isinstance(ftype, dict):
            raise UnsupportedConstruct(f"{where}: switch-on types are not supported")
        repeat = f.get("repeat")
        if repeat is not None and repeat != "expr":
            raise UnsupportedConstruct(f"{where}: repeat: {repeat} is not supported (only repeat: expr)")

        cond = f.get("if")
        body_indent = indent
        if cond is not None:
            self.line(indent, f"if {expr(cond)}:")
            body_indent = indent + 1

        if repeat == "expr":
            if "size" in f or "size-eos" in f or ftype in INT_TYPES or ftype is None:
                raise UnsupportedConstruct(f"{where}: repeat: expr is supported for a user type read in place only")
            self.emit_repeat(spec, type_path, f, prefix, end, body_indent, expr)
        elif "size" in f or f.get("size-eos"):
            self.emit_sized(spec, type_path, f, prefix, end, body_indent, expr, opaque)
        elif ftype in INT_TYPES or (isinstance(ftype, str) and ftype[:2] in INT_TYPES and ftype[2:] in ("be", "le")):
            self.emit_int(spec, type_path, f, prefix, end, body_indent, scope, expr)
        elif ftype is None:
            raise UnsupportedConstruct(f"{where}: a field with neither type nor size")
        else:
            target_spec, target_path = self.gen.resolve(spec, type_path, ftype)
            if target_spec.name == VARINT_SPEC and target_path == "":
                self.emit_varint(spec, type_path, f, prefix, end, body_indent, scope, expr)
            else:
                # A user type read in place: its fields are columns of this table.
                self.emit_type(target_spec, target_path, col + ".", end, body_indent)
                scope[fid] = "@" + col + "."  # marks a nested type for `fid.sub` lookups

        if cond is not None:
            self.line(indent, "else:")
            if "size" in f or f.get("size-eos"):
                self.line(indent + 1, f"{self.cell(self._col_ref(col + '.pos'))} = 0")
                self.line(indent + 1, f"{self.cell(self._col_ref(col + '.size'))} = -1")
            elif repeat == "expr":
                self.line(indent + 1, f"{self.cell(self._col_ref(col + '.first'))} = 0")
                self.line(indent + 1, f"{self.cell(self._col_ref(col + '.count'))} = 0")
            elif fid in scope and not scope[fid].startswith("@"):
                self.line(indent + 1, f"{scope[fid]} = 0")
                self.line(indent + 1, f"{self.cell(self._col_ref(col))} = 0")
            else:
                raise UnsupportedConstruct(f"{where}: if on a user type read in place is not supported")

    def cell(self, const: str) -> str:
        """Where a column of this row is stored."""
        return self.gen.dialect.cell(const)

    def _col_ref(self, name: str) -> str:
        return _const(self.table, name)

    def emit_int(self, spec, type_path, f, prefix, end, indent, scope, expr) -> None:
        fid, ftype = f["id"], f["type"]
        base = ftype[:2]
        endian = ftype[2:] or spec.endian
        size, signed = INT_TYPES[base]
        if endian != "be" and size > 1:
            raise UnsupportedConstruct(f"{self.where(spec, type_path, fid)}: little-endian integers are not supported")
        self.line(indent, f"if {end} - pos < {size}:")
        self.fail(indent + 1, spec, type_path, fid, EOF)
        var = _var(prefix, fid)
        reader = f"_int_be(buf, pos, {size})" if signed else f"_uint_be(buf, pos, {size})"
        self.line(indent, f"{var} = {reader}")
        self.line(indent, f"pos += {size}")
        scope[fid] = var
        self.emit_valid(spec, type_path, f, var, indent, expr)
        self.line(indent, f"{self.cell(self.column(prefix + fid))} = {var}")

    def emit_varint(self, spec, type_path, f, prefix, end, indent, scope, expr) -> None:
        fid = f["id"]
        var = _var(prefix, fid)
        status = self.fresh("k")
        # Numbers of one or two bytes (most lengths and deltas) are read in place; longer ones by the function.
        d = self.gen.dialect
        self.line(indent, f"if pos < {end} and {d.raw('pos')} < 0x80:")
        self.line(indent + 1, f"{var} = {d.byte('pos')}")
        self.line(indent + 1, f"{var} = ({var} >> 1) ^ -({var} & 1)")
        self.line(indent + 1, "pos += 1")
        self.line(indent, f"elif pos + 1 < {end} and {d.raw('pos + 1')} < 0x80:")
        self.line(indent + 1, f"{var} = ({d.byte('pos')} & 0x7F) | ({d.byte('pos + 1')} << 7)")
        self.line(indent + 1, f"{var} = ({var} >> 1) ^ -({var} & 1)")
        self.line(indent + 1, "pos += 2")
        self.line(indent, "else:")
        self.line(indent + 1, f"{var}, pos, {status} = read_kafka_varint(buf, pos, {end})")
        self.line(indent + 1, f"if {status} == 1:")
        self.fail(indent + 2, spec, type_path, fid, EOF)
        self.line(indent + 1, f"if {status} == 2:")
        self.fail(indent + 2, spec, type_path, fid, VARINT_TOO_LONG)
        scope[fid] = var
        self.emit_valid(spec, type_path, f, var, indent, expr, varint=True)
        self.line(indent, f"{self.cell(self.column(prefix + fid))} = {var}")

    def emit_valid(self, spec, type_path, f, var, indent, expr, varint: bool = False) -> None:
        valid = f.get("valid")
        if valid is None:
            return
        fid = f["id"]
        if not isinstance(valid, dict):
            valid = {"eq": valid}
        for key, val in valid.items():
            if key == "min":
                self.line(indent, f"if {var} < {int(val)}:")
                self.fail(indent + 1, spec, type_path, fid, VALID_MIN, str(val))
            elif key == "max":
                self.line(indent, f"if {var} > {int(val)}:")
                self.fail(indent + 1, spec, type_path, fid, VALID_MAX, str(val))
            elif key == "eq":
                self.line(indent, f"if {var} != {int(val)}:")
                self.fail(indent + 1, spec, type_path, fid, VALID_EQ, str(val))
            elif key == "any-of":
                self.line(indent, f"if not ({' or '.join(f'{var} == {int(v)}' for v in val)}):")
                self.fail(indent + 1, spec, type_path, fid, VALID_ANY_OF, str(val))
            elif key == "expr":
                self.line(indent, f"if not ({expr(val).replace('@SELF', var)}):")
                self.fail(indent + 1, spec, type_path, fid, VALID_EXPR, str(val))
            else:
                raise UnsupportedConstruct(f"{self.where(spec, type_path, fid)}: valid: {key} is not supported")

    def emit_sized(self, spec, type_path, f, prefix, end, indent, expr, opaque) -> None:
        fid = f["id"]
        col = prefix + fid
        n = self.fresh("n")
        if f.get("size-eos"):
            self.line(indent, f"{n} = {end} - pos")
        else:
            self.line(indent, f"{n} = {expr(str(f['size']))}")
            self.line(indent, f"if {n} < 0:")
            self.fail(indent + 1, spec, type_path, fid, NEGATIVE_SIZE)
            self.line(indent, f"if {n} > {end} - pos:")
            self.fail(indent + 1, spec, type_path, fid, EOF)
        self.line(indent, f"{self.cell(self.column(col + '.pos'))} = pos")
        self.line(indent, f"{self.cell(self.column(col + '.size'))} = {n}")
        ftype = f.get("type")
        if ftype is not None and opaque is None:
            if "(" in str(ftype):
                raise UnsupportedConstruct(f"{self.where(spec, type_path, fid)}: a type with parameters "
                                           f"({ftype}) is not supported")
            target_spec, target_path = self.gen.resolve(spec, type_path, ftype)
            sub_end = self.fresh("end")
            self.line(indent, f"{sub_end} = pos + {n}")
            self.emit_type(target_spec, target_path, col + ".", sub_end, indent)
            self.line(indent, f"pos = {sub_end}")
        else:
            self.line(indent, f"pos += {n}")

    def emit_repeat(self, spec, type_path, f, prefix, end, indent, expr) -> None:
        fid = f["id"]
        col = prefix + fid
        target_spec, target_path = self.gen.resolve(spec, type_path, f["type"])
        if target_spec.name == VARINT_SPEC and target_path == "":
            raise UnsupportedConstruct(f"{self.where(spec, type_path, fid)}: repeat of a varint is not supported")
        child = Table(target_spec.name + (f"::{target_path}" if target_path else ""), target_spec.name, target_path)
        self.table.children.append(child)
        self.gen.compile_table(target_spec, target_path, child)
        kids = self.table.all_children()
        k = kids.index(child) + 1
        count = self.fresh("count")
        self.line(indent, f"{count} = {expr(str(f['repeat-expr']))}")
        self.line(indent, f"{self.cell(self.column(col + '.first'))} = row{k}")
        self.line(indent, f"{self.cell(self.column(col + '.count'))} = {count}")
        i = self.fresh("i")
        self.line(indent, f"for {i} in range({count}):")
        self.line(indent + 1, f"if {self.gen.dialect.full(k)}:")
        self.line(indent + 2, f"return 1, pos{ROWS}")
        grand = child.all_children()
        first = k + 1
        sub_args = "".join(f", t{first + j}, row{first + j}" for j in range(len(grand)))
        sub_rows = "".join(f", row{first + j}" for j in range(len(grand)))
        err = self.fresh("err")
        self.line(indent + 1, f"{err}, pos{sub_rows} = {child.func}(buf, pos, {end}, t{k}, row{k}{sub_args})")
        self.line(indent + 1, f"if {err} != 0:")
        self.line(indent + 2, f"return {err}, pos{ROWS}")
        self.line(indent + 1, f"row{k} += 1")

    # -- expressions ---------------------------------------------------------------------------------------------

    _TOKEN = re.compile(r"\s*(?:(?P<num>0x[0-9a-fA-F_]+|\d[\d_]*)|(?P<enum>[a-z_][a-z0-9_]*::[a-z_][a-z0-9_]*)"
                        r"|(?P<name>[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*)|(?P<op>>=|<=|==|!=|[-+*<>()]))")

    def expr(self, text: str, spec: Spec, type_path: str, scope: dict[str, str], enums: dict, where: str) -> str:
        out, pos, text = [], 0, str(text).strip()
        while pos < len(text):
            m = self._TOKEN.match(text, pos)
            if not m or m.end() == pos:
                raise UnsupportedConstruct(f"{where}: expression {text!r}: {text[pos:].strip()!r} is not supported")
            pos = m.end()
            if m.group("num"):
                out.append(str(int(m.group("num").replace("_", ""), 0)))
            elif m.group("enum"):
                enum, member = m.group("enum").split("::")
                values = {v: k for k, v in (enums.get(enum) or {}).items()}
                if member not in values:
                    raise UnsupportedConstruct(f"{where}: expression {text!r}: unknown enum member {m.group('enum')}")
                out.append(str(int(values[member])))
            elif m.group("name"):
                out.append(self._name(m.group("name"), scope, where, text))
            else:
                out.append(m.group("op"))
        return " ".join(out)

    def _name(self, name: str, scope: dict[str, str], where: str, text: str) -> str:
        if name in ("and", "or", "not"):
            return name
        parts = name.split(".")
        if parts[0] == "_":
            if parts[1:] in ([], ["value"]):
                return "@SELF"
            raise UnsupportedConstruct(f"{where}: expression {text!r}: {name} is not supported")
        head = parts[0]
        if head not in scope:
            raise UnsupportedConstruct(f"{where}: expression {text!r}: {head} is not a field read before it "
                                       "(_parent, _root, _io and instances are not supported)")
        var = scope[head]
        rest = parts[1:]
        if var.startswith("@"):  # a type read in place: `attributes.compression`
            if len(rest) != 1:
                raise UnsupportedConstruct(f"{where}: expression {text!r}: {name} is not supported")
            return _var(var[1:], rest[0])
        if rest in ([], ["value"]):
            return var
        raise UnsupportedConstruct(f"{where}: expression {text!r}: {name} is not supported (of a varint only "
                                   ".value)")


def _var(prefix: str, fid: str) -> str:
    return "v_" + (prefix + fid).replace(".", "__")


class Numba:
    """numba's dialect: Python functions compiled at run time (`generated/kafka_kernels.py`)."""

    header = '''"""Columnar kernels for kafkalog's fast path, generated from {specs}.

Generated by scripts/kernels.py (run by scripts/generate.py): do not edit by hand.
"""
# flake8: noqa
import numba as nb
import numpy as np

'''
    constant_indent = ""
    constants_open: tuple[str, ...] = ()
    # Array indices are cast to unsigned where they cannot be negative: numba then leaves out its
    # negative-index wraparound, which costs a branch per access and stops loops from vectorizing.
    prelude = '''

@nb.njit(cache=True, nogil=True, inline="always")
def _uint_be(buf, pos, n):
    v = np.int64(0)
    for i in range(n):
        v = (v << 8) | np.int64(buf[np.uint64(pos + i)])
    return v


@nb.njit(cache=True, nogil=True, inline="always")
def _int_be(buf, pos, n):
    v = _uint_be(buf, pos, n)
    if n < 8 and v >= (np.int64(1) << (8 * n - 1)):
        v -= np.int64(1) << (8 * n)
    return v
'''

    @staticmethod
    def cell(const: str) -> str:
        return f"t[{const}, urow]"

    @staticmethod
    def byte(index: str) -> str:
        return f"np.int64(buf[np.uint64({index})])"

    @staticmethod
    def raw(index: str) -> str:
        return f"buf[np.uint64({index})]"

    @staticmethod
    def full(k: int) -> str:
        return f"row{k} >= t{k}.shape[1]"

    @staticmethod
    def function_head(name: str, args: str, kids: int) -> list[str]:
        return ["@nb.njit(cache=True, nogil=True, inline=\"always\")", f"def {name}({args}):"]

    @staticmethod
    def function_prologue() -> list[str]:
        return ["    urow = np.uint64(row)"]

    @staticmethod
    def varint(n: int) -> str:
        return f'''

@nb.njit(cache=True, nogil=True)
def read_kafka_varint(buf, pos, end):
    """A zigzag varint of at most {n} bytes (spec {VARINT_SPEC}): (value, new position, 0), or 1 at the end of
    the data, or 2 where byte {n} still has its continuation bit (valid max 0x7f of field b{n - 1})."""
    if pos >= end:
        return np.int64(0), pos, 1
    raw = np.int64(buf[np.uint64(pos)])
    if raw < 0x80:  # one byte: most lengths and deltas
        return (raw >> 1) ^ -(raw & 1), pos + 1, 0
    raw &= 0x7F
    shift = 7
    for i in range(1, {n}):
        if pos + i >= end:
            return np.int64(0), pos + i, 1
        b = np.int64(buf[np.uint64(pos + i)])
        if i == {n - 1} and b > 0x7F:
            return np.int64(0), pos + i + 1, 2
        raw |= (b & 0x7F) << shift
        if b < 0x80:
            return ((raw >> 1) & 0x7FFFFFFFFFFFFFFF) ^ -(raw & 1), pos + i + 1, 0
        shift += 7
    return np.int64(0), pos + {n}, 2
'''


class Cython:
    """Cython's dialect: C functions compiled when the package is installed (`generated/kafka_kernels.pxi`,
    included by `kafkalog/fast/engine.pyx`). A table is a `Table` struct (`data[column * rows + row]`, the
    numba tables' layout); the functions are inline, without the GIL, and return C tuples. Integers are
    gathered unsigned and then cast, so that no shift overflows a signed type."""

    header = '''# Columnar kernels for kafkalog's compiled engine, generated from {specs}.
#
# Generated by scripts/kernels.py (run by scripts/generate.py): do not edit by hand. Included by
# kafkalog/fast/engine.pyx, compiled when the package is installed; the twin of kafka_kernels.py.

from libc.stdint cimport int64_t, uint8_t, uint64_t


cdef struct Table:
    int64_t* data  # column-major: column c of row r at data[c * rows + r]
    int64_t rows

'''
    constant_indent = "    "
    constants_open = ("cdef enum:",)
    prelude = '''

cdef inline int64_t _uint_be(const uint8_t* buf, int64_t pos, int n) noexcept nogil:
    cdef uint64_t v = 0
    cdef int i
    for i in range(n):
        v = (v << 8) | buf[pos + i]
    return <int64_t>v


cdef inline int64_t _int_be(const uint8_t* buf, int64_t pos, int n) noexcept nogil:
    cdef int64_t v = _uint_be(buf, pos, n)
    if n < 8 and v >= ((<int64_t>1) << (8 * n - 1)):
        v -= (<int64_t>1) << (8 * n)
    return v
'''

    @staticmethod
    def cell(const: str) -> str:
        return f"t.data[{const} * t.rows + row]"

    @staticmethod
    def byte(index: str) -> str:
        return f"(<int64_t>buf[{index}])"

    @staticmethod
    def raw(index: str) -> str:
        return f"buf[{index}]"

    @staticmethod
    def full(k: int) -> str:
        return f"row{k} >= t{k}.rows"

    @staticmethod
    def function_head(name: str, args: str, kids: int) -> list[str]:
        def param(arg: str) -> str:
            if arg == "buf":
                return "const uint8_t* buf"
            return f"Table* {arg}" if arg.startswith("t") else f"int64_t {arg}"
        returns = ", ".join(["int", "int64_t"] + ["int64_t"] * kids)
        return [f"cdef inline ({returns}) {name}({', '.join(param(a) for a in args.split(', '))}) noexcept nogil:"]

    @staticmethod
    def function_prologue() -> list[str]:
        return []

    @staticmethod
    def varint(n: int) -> str:
        return f'''

cdef inline (int64_t, int64_t, int) read_kafka_varint(const uint8_t* buf, int64_t pos, int64_t end) noexcept nogil:
    """A zigzag varint of at most {n} bytes (spec {VARINT_SPEC}): (value, new position, 0), or 1 at the end of
    the data, or 2 where byte {n} still has its continuation bit (valid max 0x7f of field b{n - 1})."""
    cdef uint64_t raw, b
    cdef int i, shift
    if pos >= end:
        return 0, pos, 1
    raw = buf[pos]
    if raw < 0x80:  # one byte: most lengths and deltas
        return <int64_t>(raw >> 1) ^ -<int64_t>(raw & 1), pos + 1, 0
    raw &= 0x7F
    shift = 7
    for i in range(1, {n}):
        if pos + i >= end:
            return 0, pos + i, 1
        b = buf[pos + i]
        if i == {n - 1} and b > 0x7F:
            return 0, pos + i + 1, 2
        raw |= (b & 0x7F) << shift
        if b < 0x80:
            return <int64_t>(raw >> 1) ^ -<int64_t>(raw & 1), pos + i + 1, 0
        shift += 7
    return 0, pos + {n}, 2
'''


NUMBA = Numba()
CYTHON = Cython()


def generate(schemas: Path = SCHEMAS) -> str:
    """The source of generated/kafka_kernels.py for the specs in `schemas`."""
    return Generator(schemas).source(NUMBA)


def generate_cython(schemas: Path = SCHEMAS) -> str:
    """The source of generated/kafka_kernels.pxi (the compiled engine's twin) for the specs in `schemas`."""
    return Generator(schemas).source(CYTHON)


if __name__ == "__main__":
    try:
        sys.stdout.write(generate())
    except UnsupportedConstruct as exc:
        sys.exit(f"kernels: {exc}")
