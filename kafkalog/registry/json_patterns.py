"""JSON Schema's regular expressions run by RE2, in time linear in the text, for every keyword that runs one.

jsonschema (4.18 to 4.26, the versions pinned) runs a schema's patterns with Python's backtracking `re`
in five places: `pattern`, `patternProperties`, `additionalProperties` (the names `patternProperties`
does not match), and `unevaluatedProperties` of drafts 2019-09 and 2020-12 (the names the schema's
`patternProperties`, its subschemas' included, evaluate). `^(a+)+$` against a 30-character string
takes minutes there. `validator_class` gives a validator class whose five keywords run RE2 instead.
`propertyNames` descends into `pattern`, so it runs RE2 too. `format` (`"format": "regex"`) is not
asserted: kafkalog validates without a format checker (a format is an annotation, drafts 2019-09 on).

    cls = validator_class(jsonschema.Draft7Validator)
    errors = cls(schema, registry=registry).iter_errors(value)

A pattern RE2 does not run (backreferences, lookaround) fails validation with a message saying so.
"""
from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

import jsonschema
import re2

_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False


@cache
def _compiled_pattern(pattern: str) -> Any:
    """The pattern compiled by RE2, or the reason RE2 does not run it."""
    try:
        return re2.compile(pattern, _RE2_OPTIONS)
    except re2.error as e:
        reason = e.args[0].decode(errors="replace") if e.args and isinstance(e.args[0], bytes) else str(e)
        return f"pattern {pattern!r} is not run ({reason}): kafkalog runs patterns with RE2, in linear time"


def search(pattern: str, text: str) -> bool:
    """Whether `pattern` matches somewhere in `text` (ECMA 262's `search`, as JSON Schema says); a
    jsonschema.ValidationError when RE2 does not run the pattern."""
    compiled = _compiled_pattern(pattern)
    if isinstance(compiled, str):
        raise jsonschema.ValidationError(compiled)
    return compiled.search(text) is not None


def _pattern(validator, pattern, instance, schema):
    if validator.is_type(instance, "string") and isinstance(pattern, str):
        try:
            if not search(pattern, instance):
                yield jsonschema.ValidationError(f"{instance[:60]!r} does not match {pattern!r}")
        except jsonschema.ValidationError as e:
            yield e


def _pattern_properties(validator, patterns, instance, schema):
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for k, v in instance.items():
            try:
                matched = search(pattern, k)
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
        extras = [k for k in instance if k not in properties and not any(search(p, k) for p in patterns)]
    except jsonschema.ValidationError as e:
        yield e
        return
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        yield jsonschema.ValidationError(f"additional properties are not allowed ({', '.join(map(repr, extras))} "
                                         "unexpected)")


def _valid(errors: Iterator[Any]) -> bool:
    return next(errors, None) is None


def _resolved(validator, ref: Any) -> tuple[Any, Any]:
    """(the validator evolved to the schema `ref` names, that schema). jsonschema's own keywords resolve so: its
    resolver is what a keyword function is given to follow a `$ref` with."""
    resolved = validator._resolver.lookup(ref)
    return validator.evolve(schema=resolved.contents, _resolver=resolved.resolver), resolved.contents


def _evaluated_keys(validator, instance: dict, schema: Any, draft2019: bool) -> set[str]:
    """The names of `instance` that `schema` and its applicable subschemas evaluate (JSON Schema 2020-12 §11.3,
    2019-09 §9.3.2.4), as jsonschema's `find_evaluated_property_keys_by_schema` finds them, its pattern by RE2."""
    if validator.is_type(schema, "boolean"):
        return set()
    keys: set[str] = set()
    for ref_keyword in ("$ref", "$recursiveRef" if draft2019 else "$dynamicRef"):
        if ref_keyword not in schema:
            continue
        if ref_keyword == "$recursiveRef":
            from referencing.jsonschema import lookup_recursive_ref

            resolved = lookup_recursive_ref(validator._resolver)
            inner, contents = validator.evolve(schema=resolved.contents, _resolver=resolved.resolver), resolved.contents
        else:
            inner, contents = _resolved(validator, schema[ref_keyword])
        keys |= _evaluated_keys(inner, instance, contents, draft2019)
    if draft2019:
        for keyword in ("properties", "additionalProperties", "unevaluatedProperties"):
            value = schema.get(keyword)
            if value is True:
                keys |= instance.keys()
            elif validator.is_type(value, "object"):
                keys |= value.keys() & instance.keys()
    else:
        properties = schema.get("properties")
        if validator.is_type(properties, "object"):
            keys |= properties.keys() & instance.keys()
        for keyword in ("additionalProperties", "unevaluatedProperties"):
            if (subschema := schema.get(keyword)) is not None:
                keys |= {k for k, v in instance.items() if _valid(validator.descend(v, subschema))}
    for pattern in schema.get("patternProperties", {}):
        keys |= {k for k in instance if search(pattern, k)}
    for name, subschema in schema.get("dependentSchemas", {}).items():
        if name in instance:
            keys |= _evaluated_keys(validator, instance, subschema, draft2019)
    for keyword in ("allOf", "oneOf", "anyOf"):
        for subschema in schema.get(keyword, []):
            if _valid(validator.descend(instance, subschema)):
                keys |= _evaluated_keys(validator, instance, subschema, draft2019)
    if "if" in schema:
        if validator.evolve(schema=schema["if"]).is_valid(instance):
            keys |= _evaluated_keys(validator, instance, schema["if"], draft2019)
            if "then" in schema:
                keys |= _evaluated_keys(validator, instance, schema["then"], draft2019)
        elif "else" in schema:
            keys |= _evaluated_keys(validator, instance, schema["else"], draft2019)
    return keys


def _unevaluated_properties(draft2019: bool):
    def keyword(validator, unevaluated, instance, schema):
        if not validator.is_type(instance, "object"):
            return
        try:
            evaluated = _evaluated_keys(validator, instance, schema, draft2019)
        except jsonschema.ValidationError as e:
            yield e
            return
        rejected = [k for k in instance if k not in evaluated
                    and not _valid(validator.descend(instance[k], unevaluated, path=k, schema_path=k))]
        if rejected:
            verb = "is" if len(rejected) == 1 else "are"
            what = ("not allowed" if unevaluated is False
                    else "not valid under the given schema")
            yield jsonschema.ValidationError(f"unevaluated properties are {what} "
                                             f"({', '.join(map(repr, sorted(rejected)))} {verb} unexpected)")
    return keyword


@cache
def validator_class(cls: Any) -> Any:
    """`cls` with every keyword that runs a pattern run by RE2 (jsonschema runs them with Python's `re`)."""
    keywords = {"pattern": _pattern, "patternProperties": _pattern_properties,
                "additionalProperties": _additional_properties}
    if "unevaluatedProperties" in cls.VALIDATORS:
        keywords["unevaluatedProperties"] = _unevaluated_properties(
            draft2019="2019-09" in cls.META_SCHEMA.get("$schema", ""))
    return jsonschema.validators.extend(cls, keywords)
