"""``@tool`` on plain functions: schemas, descriptions, validation, async, errors."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel

from pytest_tooleval.tools.base import Catalogue, ProviderError, ToolResult
from pytest_tooleval.tools.python import (
    PythonToolError,
    PythonToolProvider,
    collect_python_tools,
    parse_docstring,
    python_providers,
    python_tool,
    tool,
    tools_in_module,
)


class Address(BaseModel):
    city: str
    postcode: str | None = None


@tool
def book_table(
    restaurant: str,
    guests: int,
    budget: float,
    outdoor: bool,
    seating: Literal["window", "bar", "any"] = "any",
    allergies: list[str] | None = None,
    note: str | None = None,
    address: Address | None = None,
    extras: dict[str, int] | None = None,
) -> dict[str, object]:
    """Book a table at a restaurant.

    Only restaurants in the user's city are known.

    Args:
        restaurant: The restaurant's name, as the user said it.
        guests: How many people,
            the user included.
        seating (str): Where to sit.
    """
    return {
        "restaurant": restaurant,
        "guests": guests,
        "address": address,
        "allergies": allergies,
    }


@tool(name="lira_to_euro", description="Convert Turkish lira to euro at a fixed rate.")
async def convert(amount: float) -> float:
    await asyncio.sleep(0)
    return round(amount / 36.0, 2)


@tool
def explode(reason: str) -> str:
    """Always raises."""
    raise RuntimeError(reason)


@tool
def numpy_documented(path: str, limit: int = 10) -> list[str]:
    """List a folder.

    Parameters
    ----------
    path : str
        The folder, relative to home.
    limit : int, optional
        At most this many entries.

    Returns
    -------
    list of str
    """
    return [f"{path}/{index}" for index in range(limit)]


@tool
def verdict(ok: bool) -> ToolResult:
    """Returns a ToolResult itself."""
    return ToolResult("fine") if ok else ToolResult.error("not fine")


def provider() -> PythonToolProvider:
    return PythonToolProvider(
        [book_table, convert, explode, numpy_documented, verdict], source="python:test"
    )


def test_schema_for_common_types() -> None:
    params = python_tool(book_table).parameters
    props = params["properties"]
    assert params["type"] == "object"
    assert params["required"] == ["restaurant", "guests", "budget", "outdoor"]
    assert params["additionalProperties"] is False
    assert props["restaurant"]["type"] == "string"
    assert props["guests"]["type"] == "integer"
    assert props["budget"]["type"] == "number"
    assert props["outdoor"]["type"] == "boolean"
    assert props["seating"]["enum"] == ["window", "bar", "any"]
    assert props["seating"]["default"] == "any"
    assert {"type": "array", "items": {"type": "string"}} in props["allergies"]["anyOf"]
    assert {"type": "null"} in props["note"]["anyOf"]
    assert {"$ref": "#/$defs/Address"} in props["address"]["anyOf"]
    assert params["$defs"]["Address"]["required"] == ["city"]
    assert {"type": "object", "additionalProperties": {"type": "integer"}} in props["extras"][
        "anyOf"
    ]
    assert "title" not in params and "title" not in props["guests"]


def test_description_and_parameter_docs_from_the_docstring() -> None:
    spec = python_tool(book_table)
    assert spec.name == "book_table"
    assert spec.description == "Book a table at a restaurant."
    props = spec.parameters["properties"]
    assert props["restaurant"]["description"] == "The restaurant's name, as the user said it."
    assert props["guests"]["description"] == "How many people, the user included."
    assert props["seating"]["description"] == "Where to sit."
    assert "description" not in props["budget"]
    numpy = python_tool(numpy_documented)
    assert numpy.description == "List a folder."
    assert numpy.parameters["properties"]["limit"]["description"] == "At most this many entries."


def test_decorator_arguments_override_name_and_description() -> None:
    spec = python_tool(convert)
    assert (spec.name, spec.description) == (
        "lira_to_euro",
        "Convert Turkish lira to euro at a fixed rate.",
    )
    assert convert.__name__ == "convert"  # the function is returned unchanged


def test_the_decorator_marks_the_function_and_keeps_no_global_registry() -> None:
    import pytest_tooleval.tools.python as module

    # a process-global registry leaked tools between sessions: tools are found per module
    assert not any(name.endswith("REGISTRY") for name in vars(module))
    assert {t.__name__ for t in tools_in_module(sys.modules[__name__])} >= {
        "book_table", "convert", "explode"}


def test_calls_validate_and_render() -> None:
    tools = provider()
    assert [spec.source for spec in tools.list_tools()] == ["python:test"] * 5
    result = tools.call(
        "book_table",
        {
            "restaurant": "Çiya",
            "guests": "4",
            "budget": 1500,
            "outdoor": True,
            "address": {"city": "İstanbul"},
        },
    )
    assert not result.is_error
    assert json.loads(result.text) == {
        "restaurant": "Çiya",
        "guests": 4,
        "address": {"city": "İstanbul", "postcode": None},
        "allergies": None,
    }
    assert tools.call("numpy_documented", {"path": "Documents", "limit": 2}).text == (
        '["Documents/0", "Documents/1"]'
    )
    assert tools.call("verdict", {"ok": False}) == ToolResult.error("not fine")


def test_async_functions_are_awaited() -> None:
    tools = provider()
    assert tools.call("lira_to_euro", {"amount": 3600}).text == "100.0"
    assert tools.call("lira_to_euro", {"amount": 72}).text == "2.0"
    tools.close()


def test_async_functions_work_under_a_running_loop() -> None:
    async def main() -> ToolResult:
        return provider().call("lira_to_euro", {"amount": 36})

    assert asyncio.run(main()).text == "1.0"


def test_exceptions_become_tool_errors_the_model_sees() -> None:
    result = provider().call("explode", {"reason": "disk full"})
    assert result == ToolResult(text="error: RuntimeError: disk full", is_error=True)


class _Unreadable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("__str__ broke")


@tool
def unreadable() -> str:
    """Raises an exception whose message cannot be read."""
    raise _Unreadable


def test_an_exception_whose_message_cannot_be_read_is_still_a_tool_error() -> None:
    """Its __str__ raised inside the provider: the case was an ERROR blaming pytest-tooleval
    ('internal error ... please report it'), and `tooleval call` printed a traceback."""
    result = PythonToolProvider([unreadable], source="python:test").call("unreadable", {})
    assert result == ToolResult.error("_Unreadable: (its message could not be read)")


@tool
def interrupting() -> str:
    """Raises KeyboardInterrupt itself; no one pressed Ctrl-C."""
    raise KeyboardInterrupt


def test_a_keyboard_interrupt_a_tool_raises_is_its_error_not_the_end_of_the_run() -> None:
    """It reached pytest as a Ctrl-C: the run stopped, 'interrupted (Ctrl-C): 0 of 2 cases
    ran', and `tooleval call` and `tooleval check --oracle` printed a traceback."""
    catalogue = Catalogue([PythonToolProvider([interrupting], source="python:test")])
    try:
        result = catalogue.call("interrupting", {})
    except KeyboardInterrupt:  # raised here it would stop this test run too
        pytest.fail("the tool's KeyboardInterrupt escaped as a Ctrl-C")
    assert result == ToolResult.error("KeyboardInterrupt: ")


def test_a_huge_result_or_error_is_clipped_as_a_builtins_is() -> None:
    """A Python tool's 5 MB result (or exception message) went whole to the model."""
    def dump() -> str:
        """Dump."""
        return "x" * 5_000_000

    def fail() -> str:
        """Fail."""
        raise ValueError("y" * 5_000_000)

    catalogue = Catalogue([PythonToolProvider([dump, fail], source="python:test")])
    for name in ("dump", "fail"):
        text = catalogue.call(name, {}).text
        assert len(text) < 20_100 and "\n[... truncated, 49" in text[-60:], text[-80:]
    assert catalogue.call("fail", {}).is_error


def test_invalid_arguments_become_tool_errors() -> None:
    result = provider().call(
        "book_table", {"restaurant": "X", "guests": "many", "outdoor": "maybe", "colour": "red"}
    )
    assert result.is_error
    assert result.text.startswith("error: invalid arguments for book_table:")
    for part in ("guests:", "budget: Field required", "outdoor:", "colour: unknown argument"):
        assert part in result.text
    assert provider().call("nope", {}).is_error


def test_parameters_named_like_pydantic_members_are_kept() -> None:
    """``model_config`` vanished from the schema and its argument was refused as unknown
    (pydantic took it for the argument model's configuration); ``model_dump`` refused the
    tool with pydantic's own message; ``schema`` or ``copy`` shadowed a member."""

    @tool
    def configure(model_config: str, model_dump: int, schema: str = "s",
                  copy: bool = False, _private: str = "p") -> str:
        """Configure."""
        return f"{model_config} {model_dump} {schema} {copy} {_private}"

    spec = python_tool(configure)
    assert set(spec.parameters["properties"]) == {
        "model_config", "model_dump", "schema", "copy", "_private"}
    assert spec.parameters["required"] == ["model_config", "model_dump"]
    result = PythonToolProvider([configure], source="python:test").call(
        "configure", {"model_config": "fast", "model_dump": "3", "copy": True})
    assert result == ToolResult.of("fast 3 s True p")
    refused = PythonToolProvider([configure], source="python:test").call(
        "configure", {"model_config": "fast"})
    assert "model_dump: Field required" in refused.text


def test_a_pydantic_field_as_a_default_gives_its_default_and_limits() -> None:
    """``limit: int = Field(3, ge=1, le=10)`` (pydantic's way for function arguments): the
    schema lost its limits and default, 20 ran, and an omitted limit reached the function as
    the FieldInfo itself (a TypeError the model saw as the tool's error)."""
    from pydantic import Field

    @tool
    def lookup(key: str, limit: int = Field(3, ge=1, le=10, description="How many.")) -> str:
        """Look a key up."""
        return key * limit

    spec = python_tool(lookup)
    assert spec.parameters["properties"]["limit"] == {
        "type": "integer", "default": 3, "minimum": 1, "maximum": 10, "description": "How many."}
    provider = PythonToolProvider([lookup], source="python:test")
    assert provider.call("lookup", {"key": "k"}) == ToolResult.of("kkk")
    assert "limit: Input should be less than or equal to 10" in provider.call(
        "lookup", {"key": "k", "limit": 20}).text


@pytest.mark.parametrize("signature, why", [
    ('limit: int = "3"', r"parameter 'limit': its default '3' fails its own schema \('3' is "
                         r"not of type 'integer'\); fix: "),
    ("query: str = None", r"parameter 'query': its default None fails its own schema \(None "
                          r"is not of type 'string'\); fix: .*'T \| None'"),
    ("limit: int = Field(0, ge=1)", r"parameter 'limit': its default 0 fails its own schema"),
])
def test_a_default_its_own_schema_refuses_is_refused_at_decoration(signature, why) -> None:
    """The schema offered the model that default: a model that sent it back had its call
    refused as a schema violation, counted as the model's malformed call."""
    from pydantic import Field

    scope = {"tool": tool, "Field": Field}
    exec(f'def lookup({signature}) -> str:\n    """Look a thing up."""\n', scope)
    with pytest.raises(PythonToolError, match=r"^@tool 'lookup' \(.*\): " + why):
        tool(scope["lookup"])


def test_bad_signatures_are_rejected_at_decoration() -> None:
    with pytest.raises(PythonToolError, match=r"'spread'.*\*args"):

        @tool
        def spread(*values: int) -> int:
            return sum(values)

    with pytest.raises(PythonToolError, match=r"'lookup'.*no description; fix: .*docstring"):

        @tool  # was offered silently, described by its name alone
        def lookup(key: str) -> str:
            return key

    with pytest.raises(PythonToolError, match="tool name"):
        tool(name="has space")(lambda: None)
    with pytest.raises(PythonToolError, match="tool name"):  # "$" allowed a final newline
        tool(name="shout\n")(lambda: None)


def test_a_parameter_type_without_a_schema_is_named_with_a_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pydantic's own text named neither the parameter nor a fix, and advised setting
    ``arbitrary_types_allowed`` in a model_config the user never wrote."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    (tmp_path / "tooleval_socket_tools.py").write_text(
        "import socket\n\nfrom pytest_tooleval import tool\n\n\n@tool\n"
        "def open_port(host: str, sock: socket.socket) -> str:\n"
        '    """Open a port."""\n    return host\n')
    with pytest.raises(PythonToolError) as refused:
        collect_python_tools(["tooleval_socket_tools"], base_dir=tmp_path)
    message = str(refused.value)
    assert message.startswith("@tool 'open_port' (")
    assert "parameter 'sock': socket.socket has no JSON schema" in message
    assert "fix: annotate it with str, int" in message
    assert "arbitrary_types_allowed" not in message and "\n" not in message


def test_a_refused_tool_in_a_conftest_is_named_as_refused_not_unimportable(
    tmp_path: Path,
) -> None:
    """tooleval check and call said 'cannot be imported outside pytest
    (pytest_tooleval.tools.python.PythonToolError: @tool ...)'."""
    from pytest_tooleval.check.catalogue import conftest_modules
    from pytest_tooleval.config import Settings

    (tmp_path / "tooleval.toml").write_text("")
    (tmp_path / "conftest.py").write_text(
        "import socket\n\nfrom pytest_tooleval import tool\n\n\n@tool\n"
        "def lock_stock(sock: socket.socket) -> str:\n"
        '    """Lock the stock."""\n    return "ok"\n')
    problems: list[str] = []
    conftest_modules(Settings.from_directory(tmp_path), [tmp_path], problems)
    [problem] = problems
    assert problem.startswith(f"python:{tmp_path / 'conftest.py'}:6: @tool 'lock_stock' (")
    assert ": parameter 'sock': socket.socket has no JSON schema the model could fill; fix: " \
           "annotate it with str" in problem
    assert "cannot be imported" not in problem and "PythonToolError" not in problem


def test_parse_docstring_without_sections() -> None:
    assert parse_docstring("One line.\nstill first.\n\nSecond paragraph.") == (
        "One line. still first.",
        {},
    )
    assert parse_docstring("") == ("", {})


def test_collect_python_tools_imports_configured_modules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))
    (tmp_path / "tooleval_demo_tools.py").write_text(
        "from pytest_tooleval.tools.python import tool\n"
        "import json\n\n"
        "@tool\n"
        "def shout(text: str) -> str:\n"
        '    """Upper-case the text."""\n'
        "    return text.upper()\n\n"
        "def helper() -> None: ...\n"
    )
    found = collect_python_tools(["tooleval_demo_tools"], base_dir=tmp_path)
    assert [function.__name__ for function in found] == ["shout"]
    providers = python_providers(found)
    assert len(providers) == 1 and providers[0].source.startswith("python:")
    assert providers[0].call("shout", {"text": "hey"}).text == "HEY"


def test_collect_python_tools_names_the_failing_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))
    with pytest.raises(PythonToolError, match=r"'tooleval_no_such_module'.*cannot be imported"):
        collect_python_tools(["tooleval_no_such_module"], base_dir=tmp_path)
    (tmp_path / "tooleval_broken_tools.py").write_text("import tooleval_missing_dependency\n")
    with pytest.raises(PythonToolError, match=r"'tooleval_broken_tools'.*missing_dependency"):
        collect_python_tools(["tooleval_broken_tools"], base_dir=tmp_path)
    (tmp_path / "tooleval_empty_tools.py").write_text("X = 1\n")
    with pytest.raises(PythonToolError, match="defines no @tool functions"):
        collect_python_tools(["tooleval_empty_tools"], base_dir=tmp_path)


def test_a_tools_module_that_exits_on_import_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A script's sys.exit() or argparse at import time raises SystemExit, which is no
    Exception: `tooleval check` ended with exit 0 and no output, having checked nothing."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    (tmp_path / "tooleval_script_tools.py").write_text("import sys\nsys.exit(0)\n")
    with pytest.raises(PythonToolError, match=r"'tooleval_script_tools'.*SystemExit"):
        collect_python_tools(["tooleval_script_tools"], base_dir=tmp_path)
    (tmp_path / "tooleval_argparse_tools.py").write_text(
        "import argparse\nargparse.ArgumentParser().parse_args(['--no-such-flag'])\n")
    with pytest.raises(PythonToolError, match=r"'tooleval_argparse_tools'.*SystemExit: 2"):
        collect_python_tools(["tooleval_argparse_tools"], base_dir=tmp_path)


@tool
def parse_flags(flags: str) -> str:
    """Parse command-line style flags, as a tool built on argparse does."""
    import argparse

    parser = argparse.ArgumentParser(prog="parse_flags", exit_on_error=False)
    parser.add_argument("--count", type=int, required=True)
    return str(parser.parse_args(flags.split()).count)


def test_a_tool_that_exits_is_a_tool_error_the_model_sees() -> None:
    """argparse (and sys.exit) raise SystemExit: a tool error, not the end of the case."""
    tools = PythonToolProvider([parse_flags], source="python:test")
    result = tools.call("parse_flags", {"flags": "--verbose"})
    assert result.is_error and "SystemExit" in result.text
    assert tools.call("parse_flags", {"flags": "--count 3"}).text == "3"


@tool
def raw_bytes() -> bytes:
    """Return bytes that are no UTF-8."""
    return b"\xff\xfe"


@tool
def loop_back() -> dict[str, object]:
    """Return a dict that contains itself."""
    looped: dict[str, object] = {}
    looped["self"] = looped
    return looped


def test_a_result_that_cannot_be_shown_is_a_provider_error_naming_the_tool() -> None:
    """Rendering ran outside the provider's care: the UnicodeDecodeError or ValueError
    reached the case as 'internal error in pytest-tooleval ... please report it' (kind
    harness), blaming the harness for the tool's return value."""
    tools = PythonToolProvider([raw_bytes, loop_back], source="python:test")
    with pytest.raises(ProviderError, match=r"'raw_bytes'.*bytes.*UnicodeDecodeError"):
        tools.call("raw_bytes", {})
    with pytest.raises(ProviderError, match=r"'loop_back'.*dict.*Circular reference"):
        tools.call("loop_back", {})


class Order:  # no JSON form, no __str__ of its own
    def __init__(self) -> None:
        self.number = "A-1042"


class Money:
    def __str__(self) -> str:
        return "12.50 EUR"


@tool
def fetch_order() -> dict[str, object]:
    """Fetch an order."""
    return {"order": Order(), "total": Money()}


def test_an_object_with_no_json_form_nor_str_is_a_provider_error_not_its_address() -> None:
    """The model was shown '{"order": "<...Order object at 0x7f...>", ...}': an address that
    differs each run, and a case the model could not pass scored as its failure."""
    tools = PythonToolProvider([fetch_order], source="python:test")
    with pytest.raises(ProviderError, match=r"'fetch_order' returned a dict that cannot be shown"
                                            r" as text \(TypeError: Order has no JSON form and "
                                            r"no __str__ of its own\)"):
        tools.call("fetch_order", {})
    Order.__str__ = lambda self: f"order {self.number}"  # type: ignore[method-assign]
    try:
        assert json.loads(tools.call("fetch_order", {}).text) == {
            "order": "order A-1042", "total": "12.50 EUR"}
    finally:
        del Order.__str__
