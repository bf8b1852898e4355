"""Grammar mode "on": the JSON envelope that allows a final answer or a schema-valid call,
one JSON schema for llama-cpp-python (through its GBNF converter) and remote servers.
``LlamaGrammar.from_string`` does not validate (an invalid grammar segfaults at generation),
so grammars are checked by llama.cpp's own parser (``validate_gbnf``) before use.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from pytest_tooleval.models.base import BackendError
from pytest_tooleval.tools.base import ToolSpec

MECHANISM = "json-envelope"

# Keywords llama.cpp's schema converter reads; anything else in a tool schema is not enforced
# by the grammar (the engine's schema validation still judges the arguments).
_CONVERTER_KEYWORDS = {
    "type", "properties", "required", "additionalProperties", "items", "prefixItems",
    "minItems", "maxItems", "minLength", "maxLength", "enum", "const", "anyOf",
    "oneOf", "allOf", "$ref", "$defs", "definitions", "format",
}
_ANNOTATIONS = {"description", "title", "default", "examples", "$schema", "$id", "$comment",
                "deprecated", "readOnly", "writeOnly"}
_SUPPORTED_FORMATS = {"date", "time", "date-time", "uuid"}
# A character of a JSON string, as GBNF.
_JSON_CHAR = r'[^"\\\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F]{4})'


class GrammarError(BackendError):
    """The constraint could not be built faithfully; an "on" run must not proceed with it."""

    kind = "grammar"


def _resolve_pointer(root: dict[str, Any], ref: str) -> Any:
    node: Any = root
    path = ref.removeprefix("#").removeprefix("/")
    try:
        for part in path.split("/") if path else []:
            node = node[part.replace("~1", "/").replace("~0", "~")]
    except (KeyError, IndexError, TypeError) as error:
        raise GrammarError(f"unresolvable $ref {ref!r} in a tool schema") from error
    return node


def inline_refs(schema: dict[str, Any], *, depth: int = 32) -> dict[str, Any]:
    """The schema with its local ``$ref``s inlined, so it can sit inside the envelope
    (``GrammarError`` for a recursive one)."""

    def walk(node: Any, level: int) -> Any:
        if level > depth:
            raise GrammarError("recursive $ref in a tool schema cannot be inlined")
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                if not ref.startswith("#"):
                    raise GrammarError(f"remote $ref {ref!r} in a tool schema")
                target = walk(copy.deepcopy(_resolve_pointer(schema, ref)), level + 1)
                rest = {k: walk(v, level) for k, v in node.items() if k != "$ref"}
                return {**target, **rest} if rest else target
            return {
                k: walk(v, level) for k, v in node.items() if k not in ("$defs", "definitions")
            }
        if isinstance(node, list):
            return [walk(item, level) for item in node]
        return node

    return walk(schema, 0)


_ANY_VALUE = {"type": ["string", "number", "boolean", "object", "array", "null"]}


def _explicit(node: Any) -> Any:
    """The schema without annotations and with "any value" ({}, true) spelled out: llama.cpp's
    converter reads {} as "an object" and refuses a schema of only a description."""
    if not isinstance(node, dict):
        return _ANY_VALUE if node is True else node
    for key in ("anyOf", "oneOf"):
        if isinstance(alternatives := node.get(key), list) and alternatives and all(
                isinstance(a, dict) and set(a) == {"required"} for a in alternatives):
            # "one of these is required": each alternative the whole object with its own
            # required list (the converter cannot read an alternative of "required" alone)
            rest = {k: v for k, v in node.items() if k != key}
            return {"anyOf": [_explicit({**rest, "required": [*rest.get("required", []),
                                                              *a["required"]]})
                              for a in alternatives]}
    if isinstance(node.get("type"), list) and set(node) - _ANNOTATIONS - {"type"}:
        # the converter reads a type list alone ("string | null"), dropping its siblings
        # (enum, maxLength, …): one alternative per type keeps them
        rest = {k: v for k, v in node.items() if k != "type"}
        return {"anyOf": [_explicit({**rest, "type": kind}) for kind in node["type"]]}
    out = {}
    for key, value in node.items():
        if key == "properties" and isinstance(value, dict):
            value = {name: _explicit(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties", "anyOf", "oneOf", "allOf", "prefixItems"):
            value = [_explicit(sub) for sub in value] if isinstance(value, list) else _explicit(
                value)
        if key not in _ANNOTATIONS:
            out[key] = value
    return out or _ANY_VALUE


def _arguments_schema(spec: ToolSpec) -> dict[str, Any]:
    params = _explicit(inline_refs(dict(spec.parameters or {})))
    return {"type": "object"} if params is _ANY_VALUE else params


def envelope_schema(tools: list[ToolSpec]) -> dict[str, Any]:
    """The JSON schema of one turn under grammar "on": an answer or a call of a shown tool."""
    alternatives: list[dict[str, Any]] = [
        {
            "type": "object",
            "properties": {"answer": {"type": "string"}},
            "required": ["answer"],
            "additionalProperties": False,
        }
    ]
    for spec in tools:
        alternatives.append(
            {
                "type": "object",
                "properties": {"tool": {"const": spec.name}, "arguments": _arguments_schema(spec)},
                "required": ["tool", "arguments"],
                "additionalProperties": False,
            }
        )
    return {"anyOf": alternatives}


def unenforced_keywords(schema: Any) -> set[str]:
    """Schema keywords the llama.cpp converter ignores (``minimum``, ``not``, …)."""
    found: set[str] = set()

    def walk(node: Any, in_properties: bool) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item, False)
            return
        if not isinstance(node, dict):
            return
        for key, value in node.items():
            if in_properties:  # keys are property names, values schemas
                walk(value, False)
                continue
            if key == "format" and value not in _SUPPORTED_FORMATS:
                found.add(f"format:{value}")
            elif key in ("minLength", "maxLength") and "pattern" in node:
                found.add(key)  # a string with a pattern is written as any string
            elif key not in _CONVERTER_KEYWORDS and key not in _ANNOTATIONS:
                found.add(key)
            if key in ("properties", "$defs", "definitions"):
                walk(value, True)
            elif key not in ("enum", "const", "required", "examples", "default"):
                walk(value, False)

    walk(schema, False)
    return found


def schema_to_gbnf(schema: dict[str, Any]) -> str:
    """GBNF for the schema through llama-cpp-python's converter, checked not to have
    degraded to "any JSON": each tool name and the answer key must appear as literals."""
    from llama_cpp.llama_grammar import SchemaConverter  # heavy: import on use

    class Converter(SchemaConverter):
        def _format_literal(self, literal: str) -> str:  # ``literal``: JSON text
            # as a model writes it (ü, not \u00fc); the library's left backslashes bare
            return json.dumps(json.dumps(json.loads(literal), ensure_ascii=False),
                              ensure_ascii=False)

        def _add_primitive(self, name: str, rule: Any) -> str:
            if name == "char":  # the library's admits control characters, which JSON does not
                rule = type(rule)(_JSON_CHAR, rule.deps)
            return str(super()._add_primitive(name, rule))

        def _visit_pattern(self, pattern: str, name: str) -> str:
            # a string: the library's translation fails on \d and unanchored patterns and
            # admits broken JSON ("x"y" for ^.+$)
            return str(self.visit({"type": "string"}, name))

    try:
        converter = Converter(prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False)
        converter.visit(converter.resolve_refs(copy.deepcopy(schema), "stdin"), "")
        gbnf = converter.format_grammar()
    except Exception as error:  # the converter raises bare AssertionError/ValueError/KeyError
        raise GrammarError(f"llama.cpp cannot convert the schema: {error}") from error
    alternatives = schema.get("anyOf", [])
    root = next((line for line in gbnf.splitlines() if line.startswith("root ::=")), "")
    if alternatives and root.count("alternative-") != len(alternatives):
        raise GrammarError(f"the grammar's root lost alternatives: {root!r}")
    for alternative in alternatives:
        const = alternative.get("properties", {}).get("tool", {}).get("const")
        if const is not None and f'\\"{const}\\"' not in gbnf:
            raise GrammarError(f"the grammar lost the call of {const!r}")
    return gbnf


def validate_gbnf(vocab: Any, gbnf: str, root: str = "root") -> None:
    """Parse the grammar with llama.cpp itself (NULL on error instead of a sampler): an
    invalid grammar in a sampler chain would crash the process."""
    import llama_cpp

    sampler = llama_cpp.llama_sampler_init_grammar(vocab, gbnf.encode("utf-8"), root.encode())
    if not sampler:
        raise GrammarError("llama.cpp rejected the generated grammar")
    llama_cpp.llama_sampler_free(sampler)
