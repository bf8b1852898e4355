"""State checks: each kind holds on the world the tools left, and fails when it should."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_tooleval.cases.model import Case, StateCheck
from pytest_tooleval.tools.builtin import BuiltinToolProvider
from pytest_tooleval.world import World
from pytest_tooleval.world.state import evaluate, last_commit, same_moment


def tools(world: World) -> BuiltinToolProvider:
    provider = BuiltinToolProvider(lambda context: world)
    provider.use_world(world)
    return provider


def call(world: World, name: str, **args: Any) -> str:
    result = tools(world).call(name, args)
    assert not result.is_error, result.text
    return result.text


def holds(world: World, check: dict[str, Any], language: str = "en") -> str | None:
    parsed = StateCheck.model_validate(check)
    return evaluate(world, parsed.kind, getattr(parsed, parsed.kind),
                    contains=parsed.contains, language=language)


def test_file_exists_absent_and_contains(world: World) -> None:
    assert holds(world, {"file": "Documents/notes.txt"}) is not None  # not there yet
    call(world, "write_file", path="Documents/notes.txt", content="Buy oat milk and 2 lemons")
    assert holds(world, {"file": "Documents/notes.txt"}) is None
    assert holds(world, {"file": "Documents/notes.txt", "contains": "oat milk"}) is None
    reason = holds(world, {"file": "Documents/notes.txt", "contains": "almond"})
    assert reason is not None and "does not contain" in reason
    assert holds(world, {"absent": "Documents/notes.txt"}) == "it still exists"
    call(world, "delete_file", path="Documents/notes.txt")
    assert holds(world, {"absent": "Documents/notes.txt"}) is None


def test_event_fields_compare_times_as_moments(world: World) -> None:
    check = {"event": {"title": "Dentist", "start": "2026-03-14T15:00"}}
    assert holds(world, check) is not None
    call(world, "calendar_add", title="Dentist appointment", start="2026-03-14T15:00")
    assert holds(world, check) is None
    # The same instant written in UTC, and a bare date meaning any time that day.
    assert holds(world, {"event": {"title": "dentist", "start": "2026-03-14T12:00+00:00"}}) is None
    assert holds(world, {"event": {"title": "Dentist", "start": "2026-03-14"}}) is None
    # A wrong hour or a wrong year fails, naming what the calendar holds.
    reason = holds(world, {"event": {"title": "Dentist", "start": "2026-03-14T16:00"}})
    assert reason is not None and "Dentist appointment" in reason
    assert holds(world, {"event": {"title": "Dentist", "start": "2025-03-14"}}) is not None


def test_reminder_at_evening_eight_not_morning(world: World) -> None:
    call(world, "reminder_add", text="çöpü çıkar", at="2026-03-12T08:00")
    check = {"reminder": {"text": "çöpü", "at": "2026-03-12T20:00"}}
    assert holds(world, check, "tr") is not None
    call(world, "reminder_add", text="çöpü çıkar", at="2026-03-12T20:00")
    assert holds(world, check, "tr") is None


def test_memory_contact_and_message(world: World) -> None:
    call(world, "memory_save", text="door code is 4471", key="door-code")
    assert holds(world, {"memory": {"key": "door-code", "text": "4471"}}) is None
    assert holds(world, {"memory": {"text": "4472"}}) is not None
    assert holds(world, {"contact": {"name": "Mira", "phone": "611 482 309"}}) is None
    assert holds(world, {"contact": {"name": "Mira", "phone": "611 482 300"}}) is not None
    check = {"message": {"to": ["Mira", "611 482 309"], "text": "GeoJSON"}}
    assert holds(world, check) is not None
    call(world, "send_message", to="Selin", text="thanks for the GeoJSON work")
    assert holds(world, check) is not None  # the right text to the wrong person
    call(world, "send_message", to="+34 611 482 309", text="thanks for the GeoJSON work")
    assert holds(world, check) is None


def test_commit_paths_must_match_exactly(world: World) -> None:
    check = {"commit": {"message": "summary için --since", "paths": ["kestrel/cli.py"]}}
    assert holds(world, check, "tr") is not None  # HEAD is the template's last commit
    call(world, "git_commit", message="cli: summary için --since")  # everything: notes too
    message, paths = last_commit(world)
    assert message == "cli: summary için --since" and "kestrel/cli.py" in paths
    reason = holds(world, check, "tr")
    assert reason is not None and "NOTES-release-0.5.md" in reason


def test_commit_of_only_the_named_path_holds(world: World) -> None:
    check = {"commit": {"message": "summary için --since", "paths": ["kestrel/cli.py"]}}
    call(world, "git_commit", message="cli: summary için --since", paths=["kestrel/cli.py"])
    assert holds(world, check, "tr") is None
    assert holds(world, {"commit": {"message": "something else"}}) is not None


def test_same_moment_reads_naive_times_in_the_world_zone(world: World) -> None:
    assert same_moment("2026-03-14T15:00", "2026-03-14T12:00+00:00", world)  # Istanbul
    assert not same_moment("2026-03-14T12:00", "2026-03-14T12:00+00:00", world)
    assert same_moment("2026-03-15", "2026-03-14T22:30+00:00", world)  # 01:30 local
    assert not same_moment("not a date", "2026-03-14T12:00+00:00", world)


@pytest.mark.parametrize(
    ("check", "message"),
    [
        ({}, "exactly one of"),
        ({"file": "a.txt", "absent": "b.txt"}, "this one has file, absent"),
        ({"event": {"tittle": "x"}}, "unknown event field"),
        ({"event": {}}, "at least one field"),
        ({"absent": "a", "contains": "x"}, "'contains' goes with 'file' only"),
        ({"commit": {}}, "'message', 'paths', or both"),
        ({"message": {"to": ""}}, "is empty"),
    ],
)
def test_malformed_state_checks_are_refused(check: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        StateCheck.model_validate(check)


def test_case_checks_run_after_its_last_step() -> None:
    case = Case.model_validate({
        "name": "c", "category": "chain",
        "steps": [{"message": "a", "after": {"absent": "x"}}, {"message": "b"}],
        "after": [{"file": "y"}],
    })
    assert [c.kind for c in case.checks_after(0)] == ["absent"]
    assert [c.kind for c in case.checks_after(1)] == ["file"]
