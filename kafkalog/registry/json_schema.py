"""JSON Schema bodies: the value is JSON text; validated against its schema only when asked (`jsonschema`, its
patterns run by RE2: `registry.json_patterns`).

    compiled = compile_json_schema(store, store.by_id(9))   # the schema and its `$ref`s, checked once
    value = decode_json(compiled, body, validate=True)

References name other subjects' schemas by the URI a `$ref` uses (`"$ref": "customer.json"`);
they are registered under those names for the validator, as the registry's `JsonSchemaProvider`
resolves them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jsonschema
import referencing
import referencing.exceptions
from referencing.jsonschema import DRAFT7

from kafkalog.errors import UndecodableValueError
from kafkalog.formats import json_depth
from kafkalog.registry import json_patterns
from kafkalog.registry.store import Schema, SchemaStore


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
    except UnicodeDecodeError as e:  # JSON text is UTF-8, -16 or -32, told apart by its first bytes (RFC 8259)
        raise UndecodableValueError(
            f"the JSON body of {len(body)} bytes (schema id {schema.id}) is not JSON: byte {e.start} is not "
            f"{e.encoding.upper()} text, the encoding its first bytes say") from None
    except ValueError as e:
        raise UndecodableValueError(
            f"the JSON body of {len(body)} bytes (schema id {schema.id}) is not JSON: {e}") from None
    if validate:
        cls = json_patterns.validator_class(
            jsonschema.validators.validator_for(schema.schema, default=jsonschema.Draft7Validator))
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
