"""Shared fixtures for the model-backend tests; real-model tests skip cleanly without the
[local] extra."""

from __future__ import annotations

import importlib.util
import os

import pytest

from pytest_tooleval.tools.base import ToolSpec


def _local_missing() -> str | None:
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed (pip install 'pytest-tooleval[local]')"
    from pytest_tooleval.models.base import BackendUnavailable
    from pytest_tooleval.models.llama import default_model_path

    try:
        default_model_path()
    except BackendUnavailable as error:
        return str(error)
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Without the [local] extra the real-model tests skip with the reason, except in CI,
    where the README's test command installs it: there a missing model must fail."""
    reason = None
    checked = False
    for item in items:
        if item.get_closest_marker("realmodel") is None:
            continue
        if not checked:
            reason, checked = _local_missing(), True
        if reason and not os.environ.get("CI"):
            item.add_marker(pytest.mark.skip(reason=reason))


WEATHER = ToolSpec(
    "get_weather",
    "Get the current weather for a city.",
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    "inline:test",
)
ADD = ToolSpec(
    "add",
    "Add two integers.",
    {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
        "additionalProperties": False,
    },
    "inline:test",
)


@pytest.fixture
def tools() -> list[ToolSpec]:
    return [WEATHER, ADD]
