"""Plain Python functions as tools: ``@tool`` on a function, schema from its type hints.

Decorated functions land in a process-wide registry when their module is imported (so
decorating in ``conftest.py`` is enough); modules named in the configuration are imported
by ``collect_python_tools``. Arguments are validated with pydantic before the call, and
whatever goes wrong inside the function becomes a tool error the model sees.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
import traceback
import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, overload

import jsonschema
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model
from pydantic.fields import FieldInfo
from pydantic_core import to_jsonable_python

from pytest_tooleval.tools.base import (
    OFFERABLE_NAME,
    DuplicateToolError,
    ProviderError,
    ToolProvider,
    ToolResult,
    ToolSpec,
    clip,
)

if TYPE_CHECKING:  # asyncio is imported only when an async tool runs
    import asyncio

F = TypeVar("F", bound=Callable[..., Any])

_TOOL_ATTR = "__tooleval_tool__"


class PythonToolError(Exception):
    """A Python tool that cannot be offered: a bad signature, a module that will not import."""


@dataclass(frozen=True)
class PythonTool:
    """What ``@tool`` records on a function."""

    name: str
    description: str
    parameters: dict[str, Any]
    arguments: type[BaseModel]
    function: Callable[..., Any]
    #: ``@tool(read_only=True)``: it only reads (scoring: no action claimed after it ran).
    read_only: bool | None = None

    @property
    def origin(self) -> str:
        return tool_origin(self.function)


@overload
def tool(function: F, /) -> F: ...
@overload
def tool(*, name: str | None = None, description: str | None = None,
         read_only: bool | None = None) -> Callable[[F], F]: ...
def tool(
    function: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    read_only: bool | None = None,
) -> Any:
    """Mark a function as a tool: ``@tool`` or ``@tool(name=..., description=...,
    read_only=True)`` (it only reads: an answer that claims an action it did not do is
    caught after it ran; undeclared, it may have acted).

    The function itself is returned unchanged (still callable from the user's code).
    """
    __tracebackhide__ = True  # a refusal in a conftest.py: pytest shows the user's @tool line

    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        __tracebackhide__ = True
        setattr(fn, _TOOL_ATTR, describe_function(fn, name=name, description=description,
                                                  read_only=read_only))
        return fn

    return register(function) if function is not None else register


def python_tool(function: Callable[..., Any]) -> PythonTool:
    """The ``PythonTool`` of a decorated function, or one derived now for a plain function."""
    found = getattr(function, _TOOL_ATTR, None)
    return found if isinstance(found, PythonTool) else describe_function(function)


def describe_function(
    function: Callable[..., Any], *, name: str | None = None, description: str | None = None,
    read_only: bool | None = None,
) -> PythonTool:
    """Derive name, description and JSON schema; ``PythonToolError`` when that is impossible."""
    __tracebackhide__ = True
    tool_name = str(name or getattr(function, "__name__", ""))
    where = f"@tool {tool_name!r} ({tool_origin(function)})"
    if not OFFERABLE_NAME.match(tool_name):
        raise PythonToolError(
            f"{where}: a tool name must be 1-64 letters, digits, '_' or '-'; pass @tool(name=...)"
        )
    summary, param_docs = parse_docstring(inspect.getdoc(function) or "")
    try:
        signature = inspect.signature(function)
        hints = typing.get_type_hints(function, include_extras=True)
    except (TypeError, ValueError, NameError) as exc:
        raise PythonToolError(f"{where}: cannot read its signature: {exc}") from None
    fields: dict[str, Any] = {}
    for number, param in enumerate(signature.parameters.values()):
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD, param.POSITIONAL_ONLY):
            raise PythonToolError(
                f"{where}: parameter {param.name!r} must be a plain or keyword argument "
                "(no *args, **kwargs or positional-only parameters)"
            )
        annotation = hints.get(param.name, Any)
        default = ... if param.default is param.empty else param.default
        described = param_docs.get(param.name)
        # Each field under a name of its own, the parameter's as its alias: pydantic keeps
        # some names (``model_config``, ``model_*``, a leading ``_``) for itself.
        if isinstance(default, FieldInfo):  # ``x: int = Field(3, ge=1)``: its default, limits
            fields[f"p{number}"] = (Annotated[annotation, default], Field(
                alias=param.name, description=described or default.description))
        else:
            fields[f"p{number}"] = (annotation, Field(default, alias=param.name,
                                                     description=described))
    try:
        model = create_model(
            f"{tool_name}_arguments", __config__=ConfigDict(extra="forbid"), **fields
        )
        schema = _tidy(model.model_json_schema())
    except Exception as exc:
        for alias, (annotation, _) in zip(signature.parameters, fields.values(), strict=True):
            try:
                TypeAdapter(annotation).json_schema()
            except Exception:
                raise PythonToolError(
                    f"{where}: parameter {alias!r}: {inspect.formatannotation(annotation)} has "
                    "no JSON schema the model could fill; fix: annotate it with str, int, float, "
                    "bool, Literal[...], list[...], dict[str, ...] or a pydantic model"
                ) from None
        raise PythonToolError(f"{where}: cannot derive a JSON schema: {exc}") from None
    # As the tool loop checks a call: the defaults the schema shows.
    defaults = {key: prop["default"] for key, prop in schema.get("properties", {}).items()
                if "default" in prop}
    error = jsonschema.exceptions.best_match(jsonschema.validators.validator_for(schema)(
        {**schema, "required": []}).iter_errors(defaults))
    if error is not None:  # a model that sent the default would be refused for it
        key = str(error.absolute_path[0]) if error.absolute_path else next(iter(defaults))
        raise PythonToolError(
            f"{where}: parameter {key!r}: its default {defaults[key]!r} fails its own schema "
            f"({error.message}); fix: a default its type allows (None: annotate it 'T | None')")
    text = (description if description is not None else summary).strip()
    if not text:  # the model and the router would have its name alone to go by
        raise PythonToolError(f"{where}: no description; fix: give the function a docstring "
                              "saying what the tool does, or pass @tool(description=...)")
    return PythonTool(tool_name, text, schema, model, function, read_only)


def _tidy(schema: dict[str, Any]) -> dict[str, Any]:
    """Drop pydantic's generated titles, which only cost the model tokens."""
    for part in (schema, *schema.get("properties", {}).values()):
        part.pop("title", None)
    return schema


_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Params|Returns?|Yields?|Raises|Examples?|Notes?|See Also)"
    r"\s*:?\s*$"
)
_GOOGLE_PARAM = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_NUMPY_PARAM = re.compile(r"^(\w+)\s*(?::.*)?$")


def parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The first paragraph, and parameter descriptions from a Google or NumPy section."""
    lines = inspect.cleandoc(doc).splitlines() if doc else []
    summary: list[str] = []
    for line in lines:
        if not line.strip() or _SECTION.match(line.strip()):
            break
        summary.append(line.strip())
    params: dict[str, str] = {}
    for index, line in enumerate(lines):
        header = _SECTION.match(line.strip())
        if not header or header.group(1) not in ("Args", "Arguments", "Parameters", "Params"):
            continue
        body = lines[index + 1 :]
        numpy = bool(body) and set(body[0].strip()) == {"-"}
        params.update(_numpy_params(body[1:]) if numpy else _google_params(body))
    return " ".join(summary), params


def _google_params(body: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    current: str | None = None
    indent: int | None = None
    for line in body:
        if not line.strip():
            continue
        width = len(line) - len(line.lstrip())
        if indent is None:
            indent = width
        if width < indent or (width == 0 and _SECTION.match(line.strip())):
            break
        match = _GOOGLE_PARAM.match(line.strip())
        if width == indent and match:
            current = match.group(1).lstrip("*")
            params[current] = match.group(2).strip()
        elif current is not None:
            params[current] = f"{params[current]} {line.strip()}".strip()
    return params


def _numpy_params(body: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    current: str | None = None
    for index, line in enumerate(body):
        if not line.strip():
            continue
        if line == line.lstrip():  # a new parameter line, or the next section
            nxt = body[index + 1].strip() if index + 1 < len(body) else ""
            if _SECTION.match(line.strip()) or (nxt and set(nxt) == {"-"}):
                break
            match = _NUMPY_PARAM.match(line.strip())
            current = match.group(1) if match else None
            if current:
                params[current] = ""
        elif current is not None:
            params[current] = f"{params[current]} {line.strip()}".strip()
    return params


def tool_origin(function: Callable[..., Any]) -> str:
    """Where a function comes from: its file relative to the working directory, or module."""
    module = sys.modules.get(getattr(function, "__module__", "") or "")
    file = getattr(module, "__file__", None)
    if file:
        try:
            return Path(file).resolve().relative_to(Path.cwd().resolve()).as_posix()
        except ValueError:
            return Path(file).as_posix()
    return getattr(function, "__module__", None) or "<unknown>"


class PythonToolProvider(ToolProvider):
    """Offers a set of Python functions as tools; one provider per origin reads best."""

    def __init__(self, functions: Iterable[Callable[..., Any]], source: str | None = None) -> None:
        self._tools: dict[str, PythonTool] = {}
        for function in functions:
            spec = python_tool(function)
            if spec.name in self._tools:
                first = self._tools[spec.name]
                if first.function is spec.function:  # registered and also collected: one tool
                    continue
                raise DuplicateToolError(
                    spec.name, f"python:{first.origin}", f"python:{spec.origin}"
                )
            self._tools[spec.name] = spec
        origins = sorted({spec.origin for spec in self._tools.values()})
        self.source = source or f"python:{', '.join(origins) or '-'}"
        self._loop: asyncio.AbstractEventLoop | None = None

    def list_tools(self) -> list[ToolSpec]:
        return [
            ToolSpec(spec.name, spec.description, spec.parameters, self.source, spec.read_only)
            for spec in self._tools.values()
        ]

    def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        spec = self._tools.get(name)
        if spec is None:
            return ToolResult.error(f"{self.source} offers no tool named {name!r}")
        try:
            parsed = spec.arguments.model_validate(arguments)
        except ValidationError as exc:
            return ToolResult.error(f"invalid arguments for {name}: {_validation_summary(exc)}")
        kwargs = {str(info.alias): getattr(parsed, field)
                  for field, info in type(parsed).model_fields.items()}
        try:
            value = spec.function(**kwargs)
            if inspect.isawaitable(value):
                value = self._await(value)
        # argparse and sys.exit raise SystemExit; a KeyboardInterrupt in this thread is the
        # tool's own (Ctrl-C reaches the main thread only)
        except (Exception, SystemExit, KeyboardInterrupt) as exc:
            try:
                why = str(exc)
            except Exception:  # the exception's own __str__ fails: still the tool's error
                why = "(its message could not be read)"
            return ToolResult.error(clip(f"{type(exc).__name__}: {why}"))
        if isinstance(value, ToolResult):
            return value
        try:  # a str stays as it is; cut as a built-in's or an MCP server's result is
            shown = to_jsonable_python(value, fallback=_own_str)
            return ToolResult(clip(ToolResult.of(shown).text))
        except Exception as exc:  # bytes that are no UTF-8, a value that contains itself
            raise ProviderError(
                f"{self.source}: tool {name!r} returned a {type(value).__name__} that cannot "
                f"be shown as text ({type(exc).__name__}: {exc}); return a str or JSON data"
            ) from None

    def _await(self, awaitable: Any) -> Any:
        """Run a coroutine on this provider's own loop (kept, so loop-bound state survives)."""
        import asyncio
        import concurrent.futures

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            if self._loop is None or self._loop.is_closed() or self._loop.is_running():
                # (running: a call past its wall clock still holds it, in its own thread)
                self._loop = asyncio.new_event_loop()
            return self._loop.run_until_complete(awaitable)
        # Called from inside a running loop: run it to completion in a helper thread.
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(asyncio.run, awaitable).result()

    def close(self) -> None:
        if self._loop is not None and not self._loop.is_closed():
            self._loop.close()

    def describe(self) -> dict[str, Any]:
        return {"source": self.source, "tools": list(self._tools)}


def _own_str(value: Any) -> str:
    """A value with no JSON form, as its own ``str()``; object's (an address) is refused."""
    if type(value).__str__ is object.__str__ and type(value).__repr__ is object.__repr__:
        raise TypeError(f"{type(value).__name__} has no JSON form and no __str__ of its own")
    return str(value)


def _validation_summary(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        field = ".".join(str(part) for part in error["loc"]) or "arguments"
        message = "unknown argument" if error["type"] == "extra_forbidden" else error["msg"]
        parts.append(f"{field}: {message}")
    return "; ".join(parts)


def tools_in_module(module: Any) -> list[Callable[..., Any]]:
    """The ``@tool`` functions defined or imported at a module's top level."""
    return [
        value
        for value in vars(module).values()
        if callable(value) and isinstance(getattr(value, _TOOL_ATTR, None), PythonTool)
    ]


def collect_python_tools(
    module_names: list[str], base_dir: str | Path | None = None
) -> list[Callable[..., Any]]:
    """Import the configured modules and return their ``@tool`` functions.

    With ``base_dir`` (the project root) on ``sys.path``, modules next to the configuration
    import whatever directory pytest was started from.
    """
    if base_dir is not None and str(base_dir) not in sys.path:
        sys.path.insert(0, str(base_dir))
    found: list[Callable[..., Any]] = []
    for module_name in module_names:
        try:
            module = importlib.import_module(module_name)
        except PythonToolError:  # a refused @tool: its message names the tool and file
            raise
        except (Exception, SystemExit) as exc:  # a script's sys.exit() or argparse on import
            last = traceback.format_exception_only(type(exc), exc)[-1].strip()
            raise PythonToolError(
                f"python tools module {module_name!r} (from the configuration) "
                f"cannot be imported: {last}"
            ) from exc
        tools = tools_in_module(module)
        if not tools:
            raise PythonToolError(
                f"python tools module {module_name!r} defines no @tool functions "
                "(decorate them with pytest_tooleval.tool)"
            )
        found.extend(tool for tool in tools if tool not in found)
    return found


def python_providers(functions: Iterable[Callable[..., Any]]) -> list[PythonToolProvider]:
    """One provider per origin file, so duplicate-name messages point at the right file."""
    by_origin: dict[str, list[Callable[..., Any]]] = {}
    for function in functions:  # a function listed twice is one tool (PythonToolProvider)
        by_origin.setdefault(python_tool(function).origin, []).append(function)
    return [PythonToolProvider(group, f"python:{origin}") for origin, group in by_origin.items()]
