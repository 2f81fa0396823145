"""JSON Schema bodies: the value is JSON text; validated against its schema only when asked (`jsonschema`).

    compiled = compile_json_schema(store, store.by_id(9))   # the schema and its `$ref`s, checked once
    value = decode_json(compiled, body, validate=True)

References name other subjects' schemas by the URI a `$ref` uses (`"$ref": "customer.json"`);
they are registered under those names for the validator, as the registry's `JsonSchemaProvider`
resolves them.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import jsonschema
import re2
import referencing
import referencing.exceptions
from referencing.jsonschema import DRAFT7

from kafkalog.errors import UndecodableValueError
from kafkalog.formats import json_depth
from kafkalog.registry.store import Schema, SchemaStore

#: RE2 runs a pattern in time linear in the text (no backtracking: `^(a+)+$` cannot hang validation);
#: patterns it refuses (backreferences, lookaround) fail validation with a message instead of running.
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False


@dataclass(frozen=True)
class JsonSchema:
    id: int
    schema: Any
    registry: referencing.Registry


def compile_json_schema(store: SchemaStore, schema: Schema) -> JsonSchema:
    resources = {ref.name: _load(target) for ref, target in store.references(schema)}
    document = _load(schema)
    registry = referencing.Registry().with_resources(
        (name, referencing.Resource.from_contents(doc, default_specification=DRAFT7))
        for name, doc in resources.items())
    try:
        jsonschema.validators.validator_for(document, default=jsonschema.Draft7Validator).check_schema(document)
    except jsonschema.SchemaError as e:
        raise UndecodableValueError(f"schema id {schema.id} is not a valid JSON Schema: {e.message}") from None
    except RecursionError:
        raise UndecodableValueError(f"schema id {schema.id}: its subschemas nest too deep to check") from None
    return JsonSchema(schema.id, document, registry)


def decode_json(schema: JsonSchema, body: bytes, *, validate: bool = False) -> Any:
    """The JSON value of a body; with `validate`, UndecodableValueError when it does not match its schema."""
    try:
        value = json_depth.loads(body)
    except json_depth.JsonDepthError as e:
        raise UndecodableValueError(f"the JSON body of {len(body)} bytes (schema id {schema.id}) is refused: "
                                    f"{e}") from None
    except (UnicodeDecodeError, ValueError) as e:
        raise UndecodableValueError(
            f"the JSON body of {len(body)} bytes (schema id {schema.id}) is not JSON: {e}") from None
    if validate:
        cls = _re2_validator(jsonschema.validators.validator_for(schema.schema, default=jsonschema.Draft7Validator))
        try:
            error = jsonschema.exceptions.best_match(cls(schema.schema, registry=schema.registry).iter_errors(value))
        except referencing.exceptions.Unresolvable as e:
            raise UndecodableValueError(f"schema id {schema.id}: a $ref does not resolve: {e}") from None
        except RecursionError:  # values nest at most MAX_JSON_DEPTH: only $refs that loop get here
            raise UndecodableValueError(f"schema id {schema.id}: its $refs refer to each other without end while "
                                        "validating the value") from None
        if error is not None:
            where = "/".join(str(p) for p in error.absolute_path) or "the value"
            raise UndecodableValueError(f"the JSON value does not match schema id {schema.id} at {where}: "
                                        f"{error.message}")
    return value


def _load(schema: Schema) -> Any:
    try:
        return json_depth.loads(schema.text)
    except json_depth.JsonDepthError as e:
        raise UndecodableValueError(f"schema id {schema.id} is refused: {e}") from None
    except ValueError as e:
        raise UndecodableValueError(f"schema id {schema.id} is not JSON Schema JSON: {e}") from None


@cache
def _compiled_pattern(pattern: str) -> Any:
    """The pattern compiled by RE2, or the reason RE2 does not run it."""
    try:
        return re2.compile(pattern, _RE2_OPTIONS)
    except re2.error as e:
        reason = e.args[0].decode(errors="replace") if e.args and isinstance(e.args[0], bytes) else str(e)
        return f"pattern {pattern!r} is not run ({reason}): kafkalog runs patterns with RE2, in linear time"


def _search(pattern: str, text: str) -> bool:
    compiled = _compiled_pattern(pattern)
    if isinstance(compiled, str):
        raise jsonschema.ValidationError(compiled)
    return compiled.search(text) is not None


def _pattern(validator, pattern, instance, schema):
    if validator.is_type(instance, "string") and isinstance(pattern, str):
        try:
            if not _search(pattern, instance):
                yield jsonschema.ValidationError(f"{instance[:60]!r} does not match {pattern!r}")
        except jsonschema.ValidationError as e:
            yield e


def _pattern_properties(validator, patterns, instance, schema):
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for k, v in instance.items():
            try:
                matched = _search(pattern, k)
            except jsonschema.ValidationError as e:
                yield e
                return
            if matched:
                yield from validator.descend(v, subschema, path=k, schema_path=pattern)


def _additional_properties(validator, additional, instance, schema):
    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    try:
        extras = [k for k in instance if k not in properties and not any(_search(p, k) for p in patterns)]
    except jsonschema.ValidationError as e:
        yield e
        return
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        yield jsonschema.ValidationError(f"additional properties are not allowed ({', '.join(map(repr, extras))} "
                                         "unexpected)")


@cache
def _re2_validator(cls: Any) -> Any:
    """`cls` with its pattern keywords run by RE2 (jsonschema runs them with Python's backtracking `re`)."""
    return jsonschema.validators.extend(cls, {"pattern": _pattern, "patternProperties": _pattern_properties,
                                              "additionalProperties": _additional_properties})
