"""``[tool.tooleval.mcp.NAME]`` tables, and rendering results for the model."""

from __future__ import annotations

import base64
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_tooleval.tools.mcp import (
    McpConfigError,
    McpServerConfig,
    load_mcp_configs,
    mcp_providers,
    render_result,
)

PYPROJECT = """
[tool.tooleval.mcp.github]
command = "python"
args = ["servers/github.py", "--readonly"]
env = { GITHUB_TOKEN = "t" }
prefix = "gh_"
startup_timeout = 20
call_timeout = 30

[tool.tooleval.mcp.docs]
url = "http://127.0.0.1:8931/mcp"

[tool.tooleval.mcp.off]
command = "nothing"
enabled = false
"""


def test_loads_a_pyproject_table(tmp_path: Path) -> None:
    table = tomllib.loads(PYPROJECT)["tool"]["tooleval"]["mcp"]
    configs = load_mcp_configs(table, base_dir=tmp_path)
    github = configs["github"]
    assert github.transport == "stdio" and github.prefix == "gh_"
    assert github.args == ["servers/github.py", "--readonly"]
    assert github.env == {"GITHUB_TOKEN": "t"}
    assert github.cwd == str(tmp_path)  # stdio servers start in the project root
    assert (github.startup_timeout, github.call_timeout) == (20, 30)
    assert configs["docs"].transport == "http" and configs["docs"].cwd is None
    assert [p.source for p in mcp_providers(configs)] == ["mcp:github", "mcp:docs"]


def test_relative_cwd_is_resolved_against_the_project(tmp_path: Path) -> None:
    configs = load_mcp_configs({"s": {"command": "x", "cwd": "tools"}}, base_dir=tmp_path)
    assert configs["s"].cwd == str(tmp_path / "tools")


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"command": "x", "timeout": 3}, r"\[tool\.tooleval\.mcp\.srv\]: field 'timeout'.*unknown"),
        ({}, r"\[tool\.tooleval\.mcp\.srv\]: set either 'command'.*or 'url'"),
        ({"command": "x", "url": "http://h/mcp"}, "only one of 'command' and 'url'"),
        ({"url": "ftp://h"}, r"field 'url'.*http://"),
        ({"url": "http://h/mcp", "args": ["a"]}, "args only apply to 'command'"),
        ({"command": "x", "startup_timeout": 0}, "field 'startup_timeout'.*greater than 0"),
        ({"command": "x", "call_timeout": "soon"}, "field 'call_timeout'"),
        ({"command": "x", "prefix": "gh "}, "field 'prefix'"),
        ({"command": "x", "prefix": "gh_\n"}, "field 'prefix'"),
        ({"command": "x", "prefix": "gh."}, "field 'prefix'"),
        ({"command": "x", "args": "--flag"}, "field 'args'"),
        ({"command": "x", "env": {"A": 1}}, r"field 'env\.A'"),
        ("python server.py", r"expected a table"),
    ],
)
def test_errors_name_the_table_and_the_field(body: object, expected: str) -> None:
    with pytest.raises(McpConfigError, match=expected) as raised:
        load_mcp_configs({"srv": body})
    assert "[tool.tooleval.mcp.srv]" in str(raised.value)


@pytest.mark.parametrize("field", ["call_timeout", "reset_timeout"])
def test_an_infinite_timeout_is_refused(field: str) -> None:
    """TOML's inf passed 'gt=0': every call of the server then ended in an OverflowError
    (the catalogue's clock of inf + 10 s, the connection's wait), a reset in one too.
    (startup_timeout = inf works: no start deadline.)"""
    table = tomllib.loads(f'[srv]\ncommand = "x"\n{field} = inf\n')
    with pytest.raises(McpConfigError, match=f"field '{field}': .*finite number"):
        load_mcp_configs(table)

@pytest.mark.parametrize("field", ["call_timeout", "reset_timeout"])
def test_an_absurd_timeout_is_refused(field: str) -> None:
    """1e300 passed as finite, and then every call of the server ended in an OverflowError
    (the catalogue's clock and the connection's wait hand it to a thread's join)."""
    table = tomllib.loads(f'[srv]\ncommand = "x"\n{field} = 1e300\n')
    with pytest.raises(McpConfigError, match=f"field '{field}': .*less than or equal to 86400"):
        load_mcp_configs(table)


def test_server_names_are_checked() -> None:
    with pytest.raises(McpConfigError, match=r"\[tool\.tooleval\.mcp\.a b\]"):
        load_mcp_configs({"a b": {"command": "x"}})
    with pytest.raises(McpConfigError, match="a server name may only contain"):
        load_mcp_configs({"srv\n": {"command": "x"}})  # "$" allowed a final newline


def test_direct_construction_forbids_extra_fields() -> None:
    with pytest.raises(ValueError, match="commnd"):
        McpServerConfig.model_validate({"commnd": "x"})


def _block(**fields: object) -> SimpleNamespace:
    return SimpleNamespace(**fields)


def test_render_summarizes_non_text_content_and_structured_content() -> None:
    png = base64.b64encode(b"\x89PNG" + b"0" * 96).decode()
    result = SimpleNamespace(
        content=[
            _block(type="text", text="two attachments"),
            _block(type="image", data=png, mime_type="image/png"),
            _block(
                type="resource",
                resource=SimpleNamespace(uri="file:///notes.md", text="# Notes", mime_type=None),
            ),
            _block(
                type="resource",
                resource=SimpleNamespace(uri="file:///a.bin", blob=png, mime_type=None),
            ),
            _block(
                type="resource_link",
                uri="file:///b.pdf",
                name="b.pdf",
                title=None,
                description=None,
            ),
        ],
        structured_content={"count": 2},
        is_error=False,
    )
    text = render_result(result).text
    assert text.splitlines() == [
        "two attachments",
        "[image: image/png, 100 bytes]",
        "[resource file:///notes.md]",
        "# Notes",
        "[resource file:///a.bin: application/octet-stream, 100 bytes]",
        "[resource link: b.pdf file:///b.pdf]",
        '{"count": 2}',
    ]


def test_render_does_not_repeat_structured_content_already_in_text() -> None:
    result = SimpleNamespace(
        content=[_block(type="text", text='{"count": 2}')],
        structured_content={"count": 2},
        is_error=True,
    )
    rendered = render_result(result)
    assert rendered.text == '{"count": 2}' and rendered.is_error
    wrapped = SimpleNamespace(
        content=[_block(type="text", text="7")], structured_content={"result": 7}, is_error=False
    )
    assert render_result(wrapped).text == "7"
    listed = SimpleNamespace(
        content=[_block(type="text", text='{"n": 1}'), _block(type="text", text='{"n": 2}')],
        structured_content={"result": [{"n": 1}, {"n": 2}]},
        is_error=False,
    )
    assert render_result(listed).text == '{"n": 1}\n{"n": 2}'
    nothing = SimpleNamespace(content=[], structured_content={"result": []}, is_error=False)
    assert render_result(nothing).text == "[]"
    empty = SimpleNamespace(content=[], structured_content=None, is_error=False)
    assert render_result(empty).text == "(no content)"


def test_render_does_not_repeat_a_text_result_that_reads_as_json() -> None:
    """The SDK's servers send a str result as its text and as {"result": str}: a text
    that parses as JSON ("42", "true", a JSON object as text) was compared as the parsed
    value, so the model saw it twice ('42' and '"42"'); so did a list of such strings."""
    for value in ("42", "true", "null", '{"a": 1}'):
        result = SimpleNamespace(content=[_block(type="text", text=value)],
                                 structured_content={"result": value}, is_error=False)
        assert render_result(result).text == value
    listed = SimpleNamespace(
        content=[_block(type="text", text="0"), _block(type="text", text="b")],
        structured_content={"result": ["0", "b"]},
        is_error=False,
    )
    assert render_result(listed).text == "0\nb"
    differs = SimpleNamespace(content=[_block(type="text", text="7")],
                              structured_content={"result": "8"}, is_error=False)
    assert render_result(differs).text == '7\n"8"'
