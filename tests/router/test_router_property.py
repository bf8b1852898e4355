"""Property: routing never raises and always shows min(k, catalogue) distinct tools."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_tooleval.router.catalogue import BUILTIN_ORDER
from pytest_tooleval.router.trigger_router import TriggerRouter
from pytest_tooleval.text.normalize import normalize
from pytest_tooleval.tools.base import ToolSpec
from tests.router.routing import CATALOGUE, ROUTER

USER_TOOL = ToolSpec("gh_search_issues", "Search issues by label.", {}, "mcp")


@settings(max_examples=300, deadline=None)
@given(
    message=st.text(),
    language=st.sampled_from(["en", "tr", "de", ""]),
    k=st.integers(min_value=1, max_value=40),
    size=st.integers(min_value=0, max_value=len(CATALOGUE) + 1),
    keep=st.lists(st.sampled_from([*BUILTIN_ORDER, "not_a_tool"]), max_size=12),
)
def test_routing_always_returns_k_distinct_tools(
    message: str, language: str, k: int, size: int, keep: list[str]
) -> None:
    catalogue = [*CATALOGUE, USER_TOOL][:size]
    routing = TriggerRouter(k).route(message, language, catalogue, tuple(keep))
    assert len(routing.tools) == min(k, len(catalogue))
    assert len(set(routing.tools)) == len(routing.tools)
    assert set(routing.tools) <= {spec.name for spec in catalogue}
    assert set(routing.reasons) == set(routing.tools)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8")))
def test_normalize_never_raises_and_yields_ascii_folded_words(text: str) -> None:
    result = normalize(text)
    assert all(word and " " not in word for word in result.words)
    assert ROUTER.route(text, "tr", CATALOGUE).tools == ROUTER.route(text, "tr", CATALOGUE).tools
