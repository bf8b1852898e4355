"""Baselines beside every score, and a verdict that knows what it measured."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_tooleval.cases.load import load_case_file
from pytest_tooleval.engine.session import CaseRef
from pytest_tooleval.report.compare import compare, render_comparison
from pytest_tooleval.report.markdown import render_markdown
from pytest_tooleval.report.model import Report
from pytest_tooleval.report.terminal import interval_note
from pytest_tooleval.result import CaseResult, Outcome
from pytest_tooleval.run.score import case_identity
from pytest_tooleval.scoring.aggregate import Thresholds, summarize
from pytest_tooleval.scoring.baselines import (
    POLICIES,
    BaselineScorer,
    PolicyBackend,
    score_policies,
)
from pytest_tooleval.tools.builtin.provider import ALL_TOOLS
from pytest_tooleval.tools.names import SIDE_EFFECTING_BUILTINS
from tests.conftest import make_report
from tests.support.fake_openai import Rule, answer

ROOT = Path(__file__).resolve().parents[2]


def refs(path: Path) -> list[CaseRef]:
    case_file = load_case_file(path)
    return [CaseRef(f"{path.name}::{c.name}", str(path), case_file, c) for c in case_file.cases]


def test_policies_through_the_real_loop_and_scorer(world_base: Path) -> None:
    table = score_policies(refs(ROOT / "benchmarks" / "example.json"), world_base=world_base)
    assert set(table) == set(POLICIES)
    never, top, echo = table["never-call"], table["top-routed"], table["echo"]
    # Never calling: the irrelevance case passes, the chain's closing "thanks" holds.
    assert never["outcomes"] == {"PASS": 1, "PARTIAL": 1, "FAIL": 2, "ERROR": 0}
    assert never["axes"]["irrelevance"] == 1.0 and never["axes"]["tool"] == 0.0
    # The top-routed tool at "thanks" is a call where none was wanted.
    assert top["axes"]["irrelevance"] == 0.0
    # Echoing the question never holds evidence (the guards refuse echo-able values).
    assert echo["axes"]["answer"] == 0.0
    assert never["score"] == pytest.approx(100 * (0.4 * 1.0 + 0.2 * (1 / 3)) / 1.0)


def test_a_policys_result_is_made_as_a_runs_is(world_base: Path) -> None:
    """The baselines make a case's result with the run's own function (run/score.py): the
    case's whole identity, its content hash included; only the transcripts are left out."""
    scorer = BaselineScorer(world_base=world_base, policies=["never-call"])
    ref = refs(ROOT / "benchmarks" / "example.json")[0]
    try:
        result = scorer.score(ref)["never-call"]
    finally:
        scorer.close()
    assert result is not None and result.steps == []
    identity, dumped = case_identity(ref), result.model_dump(by_alias=True)
    assert identity["case_hash"] and {key: dumped[key] for key in identity} == identity


def test_a_policys_call_at_thanks_cut_off_by_the_machine_is_its_fail(
        world_base: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A baseline's run is scored as a run's is: its call at "thanks", then a failure of
    the machine, is its FAIL (scoring/outcome.py cut_off), not a case left out that made
    the policy look restrained."""
    from pytest_tooleval.cases.model import CaseFile
    from pytest_tooleval.engine.session import CaseRef, CaseRun
    from pytest_tooleval.engine.transcript import Attempt, StepTranscript
    from pytest_tooleval.result import ErrorInfo

    case_file = CaseFile.model_validate({"name": "f", "cases": [
        {"name": "c", "category": "irrelevance", "steps": [{"message": "thanks!"}]}]})
    ref = CaseRef("f.yaml::c", "f.yaml", case_file, case_file.cases[0])
    cut = CaseRun([StepTranscript(message="thanks!",
                                  attempts=[Attempt("calculator", {}, valid=True)])],
                  ErrorInfo(kind="provider", message="the calculator crashed"), 0.1)
    scorer = BaselineScorer(world_base=world_base, policies=["top-routed"])
    try:
        monkeypatch.setattr(scorer._sessions[0], "run", lambda ref: cut)
        result = scorer.score(ref)["top-routed"]
    finally:
        scorer.close()
    assert result is not None and result.outcome == "FAIL"
    assert result.axes == {"irrelevance": 0.0}


def test_policies_build_no_world_for_cases_whose_tools_never_touch_one(tmp_path: Path) -> None:
    import yaml

    path = tmp_path / "calc.yaml"
    path.write_text(yaml.safe_dump({"name": "calc", "language": "en", "requires": ["calculator"],
                                    "cases": [{"name": f"c{i}", "category": "tool", "steps": [
                                        {"message": f"what is 6 * {i}?",
                                         "expect": "calculator"}]} for i in range(3)]}))
    base = tmp_path / "worlds"
    base.mkdir()
    table = score_policies(refs(path), world_base=base, policies=["top-routed"])
    assert table["top-routed"]["outcomes"]["ERROR"] == 0
    assert not any(p.name.startswith("tooleval-world-") for p in base.iterdir())


def test_the_top_routed_policy_calls_the_routers_first_pick_with_empty_arguments() -> None:
    backend = PolicyBackend("top-routed")
    backend.shown = ["calculator", "x"]
    turn = backend.complete([{"role": "user", "content": "18 * 4?"}], [object()])  # type: ignore[list-item]
    assert [(c.name, c.arguments) for c in turn.calls] == [("calculator", "{}")]
    after = backend.complete([{"role": "user", "content": "18 * 4?"},
                              {"role": "tool", "content": "error"}], [object()])  # type: ignore[list-item]
    assert after.calls == [] and after.content == ""
    echo = PolicyBackend("echo")
    assert echo.complete([{"role": "user", "content": "18 * 4?"}], []).content == "18 * 4?"


def test_the_top_routed_pick_is_the_first_tool_the_router_showed(
        world_base: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No second routing: one routing per step, and the policy calls what it put first."""
    scorer = BaselineScorer(world_base=world_base, policies=["top-routed"])
    session = scorer._sessions[0]
    shown = session.router_factory(None)
    routed: list[str] = []
    inner_route = shown.inner.route

    def counted(message: str, *args: Any, **kwargs: Any) -> Any:
        routed.append(message)
        return inner_route(message, *args, **kwargs)

    # The process's shared router: patched for this test only.
    monkeypatch.setattr(shown.inner, "route", counted)
    try:
        for ref in refs(ROOT / "benchmarks" / "example.json"):
            routed.clear()
            steps = session.run(ref).transcripts
            assert routed == [step.message for step in steps], ref.case.name
            for step in steps:
                assert [a.name for a in step.attempts] == step.shown[:1], step.message
    finally:
        scorer.close()


def test_no_side_effecting_builtin_runs_with_empty_arguments() -> None:
    # Why the baselines may share one world: an empty call to any of them fails the schema.
    for name in SIDE_EFFECTING_BUILTINS:
        assert ALL_TOOLS[name].required, name


def result(outcome: str, axes: dict[str, float], nodeid: str = "f.json::c",
           case_hash: str | None = None) -> CaseResult:
    return CaseResult(nodeid=nodeid, file="f.json", case=nodeid.split("::")[-1],
                      outcome=Outcome(outcome), axes=axes, case_hash=case_hash)


FULL = {"irrelevance": 1.0, "tool": 1.0, "step": 1.0, "answer": 1.0}
def baseline(score: float) -> dict[str, Any]:
    """A policy's row as scoring/baselines.py makes it."""
    return {"policy": "a scripted policy", "score": score, "axes": {}, "outcomes": {},
            "cases": 10, "errors": 0}


NEVER = {"never-call": baseline(44.2)}


def test_a_one_case_run_is_not_measured() -> None:
    summary = summarize([result("PASS", FULL)], Thresholds(), baselines=NEVER)
    assert summary.deployability.verdict == "NOT MEASURED"
    assert summary.coverage.short == {"irrelevance": 1, "tool": 1, "step": 1, "answer": 1}
    # The same perfect case, enough times on every axis, is measured and deployable.
    many = [result("PASS", FULL, nodeid=f"f.json::c{i}") for i in range(10)]
    summary = summarize(many, Thresholds(), baselines=NEVER)
    assert summary.deployability.verdict == "DEPLOYABLE"
    assert summarize(many, Thresholds(min_cases=11),
                     baselines=NEVER).deployability.verdict == "NOT MEASURED"


def test_a_model_that_does_not_beat_the_best_baseline_is_not_deployable() -> None:
    many = [result("PASS", FULL, nodeid=f"f.json::c{i}") for i in range(10)]
    summary = summarize(many, Thresholds(min_score=0), baselines={
        "never-call": baseline(44.2), "echo": baseline(100.0)})
    criterion = summary.deployability.criterion("baseline")
    assert criterion is not None and criterion.name == "beats the best baseline"
    assert criterion.passed is False and criterion.threshold == "> echo's 100.0"
    assert summary.deployability.verdict == "NOT DEPLOYABLE"
    # Without baselines the claim cannot be made either.
    assert summarize(many, Thresholds(),
                     baselines=None).deployability.verdict == "NOT DEPLOYABLE"


def test_the_criteria_read_as_the_rest_of_the_report() -> None:
    """The criteria printed the score as 19.67 and the best baseline as '> 44.21
    (never-call)' where every other place prints 19.7 and 44.2, nesting brackets in the
    verdict ('(needs > 44.21 (never-call))'); with no baseline scored it read 'beats the
    best baseline n/a (needs baselines not scored)'."""
    from pytest_tooleval.report.terminal import verdict_reason

    def run(value: float) -> list[CaseResult]:
        return [result("PASS", {"answer": value}, nodeid=f"f.json::c{i}") for i in range(10)]

    summary = summarize(run(0.1967), Thresholds(min_cases=0),
                        baselines={"never-call": baseline(44.21)})
    reason = verdict_reason(summary, None)
    assert "score 19.7 (needs >= 70)" in reason
    assert "beats the best baseline 19.7 (needs > never-call's 44.2)" in reason
    alone = verdict_reason(summarize(run(0.1967), Thresholds(min_cases=0)), None)
    assert "beats the best baseline 19.7 (needs the baselines scored)" in alone
    # A digit more where one place would print the beaten baseline as met (44.2 > 44.2).
    close = summarize(run(0.4424), Thresholds(min_cases=0),
                      baselines={"never-call": baseline(44.21)})
    beats = close.deployability.criterion("baseline")
    assert beats is not None and beats.passed
    assert (beats.shown, beats.threshold) == ("44.24", "> never-call's 44.21")


def test_baselines_scored_on_fewer_cases_than_the_model_decide_nothing() -> None:
    """A case file that could not be reloaded at the end (moved before a merge or a
    rescore) left the baselines scored on fewer cases than the model, and the criterion
    still compared the two scores as if over the same cases: the model kept its stored
    restraint on cases where never-call had lost its 100 %. Unmet, saying why."""
    many = [result("PASS", FULL, nodeid=f"f.json::c{i}") for i in range(10)]
    short = {**baseline(44.2), "cases": 4}
    summary = summarize(many, Thresholds(), baselines={"never-call": short})
    criterion = summary.deployability.criterion("baseline")
    assert criterion is not None and criterion.passed is False
    assert "not 4 of 10" in criterion.threshold
    assert summary.deployability.verdict == "NOT DEPLOYABLE"
    assert summarize(many, Thresholds(), baselines=NEVER).deployability.verdict == "DEPLOYABLE"


def test_compare_lists_an_edited_case_apart(tmp_path: Path) -> None:
    def report(cases: list[CaseResult]) -> Report:
        return make_report(cases)

    base = report([result("PASS", {"tool": 1.0}, "f.json::edited", "aaaa"),
                   result("PASS", {"tool": 1.0}, "f.json::same", "bbbb")])
    new = report([result("FAIL", {"tool": 0.0}, "f.json::edited", "cccc"),
                  result("PASS", {"tool": 1.0}, "f.json::same", "bbbb")])
    compared = compare(new, base)
    assert compared.regressions == []
    assert compared.edited == [{"nodeid": "f.json::edited", "baseline": "PASS", "new": "FAIL"}]
    assert compared.score == (100.0, 100.0)  # the edited case is in neither figure
    assert "Edited cases (1; content changed, not compared)" in render_comparison(compared)
    # The same case with the same content is still a regression when it drops.
    worse = report([result("PASS", {"tool": 1.0}, "f.json::edited", "aaaa"),
                    result("FAIL", {"tool": 0.0}, "f.json::same", "bbbb")])
    assert [c["nodeid"] for c in compare(worse, base).regressions] == ["f.json::same"]


ABSTAIN_CASES = [
    {"name": f"weather-{city}", "category": "tool", "steps": [
        {"message": f"what's the weather in {city} right now?", "expect": "get_weather",
         "evidence": ["17.4"]}]}
    for city in ("Izmir", "Lisbon", "Oslo")
] + [
    {"name": f"thanks-{i}", "category": "irrelevance", "steps": [{"message": text}]}
    for i, text in enumerate(("thanks!", "great, that's all", "ok bye"))
]


def test_an_always_abstaining_model_is_not_deployable(project: Any, fake_model: Any) -> None:
    from tests.conftest import scenario

    server = fake_model([Rule("", [answer("I cannot help with that.")])])
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario(ABSTAIN_CASES))
    result = project.run("--tooleval-min-cases", "0", "--tooleval-min-score", "0",
                         "-k", "weather or thanks")
    summary = project.report()["summary"]
    assert summary["baselines"]["never-call"]["score"] == pytest.approx(summary["score"])
    assert summary["deployability"]["verdict"] == "NOT DEPLOYABLE"
    result.stdout.fnmatch_lines(["  verdict: NOT DEPLOYABLE: unmet:",
                                 "    beats the best baseline * (needs > never-call's *)"])
    assert "> **NOT DEPLOYABLE**: unmet: beats the best baseline" in project.markdown()
    selection = project.report()["run"]["selection"]
    assert selection["keyword"] == "weather or thanks" and selection["cases"] == 6
    assert len(selection["case_set_hash"]) == 16 and "-k" in selection["command_line"]


def test_deselected_and_ignored_cases_are_named_in_the_report(project: Any,
                                                             fake_model: Any) -> None:
    """--deselect and --ignore leave cases out of the verdict as -k does: report.json and
    report.md name them (report.md named -k and -m only)."""
    from tests.conftest import scenario

    project.profile(fake_model([Rule("", [answer("You're welcome!")])]))
    project.write("scenarios/demo.yaml", scenario(ABSTAIN_CASES))
    project.write("scenarios/more.yaml", scenario(ABSTAIN_CASES[-1:]))
    project.run("--deselect", "scenarios/demo.yaml::thanks-2", "--ignore",
                "scenarios/more.yaml", "--tooleval-min-cases", "0")
    selection = project.report()["run"]["selection"]
    assert selection["deselected"] == ["scenarios/demo.yaml::thanks-2"]
    assert selection["ignored"] == ["scenarios/more.yaml"] and selection["cases"] == 5
    assert ("; --deselect `scenarios/demo.yaml::thanks-2`; --ignore `scenarios/more.yaml`"
            in project.markdown())


def test_a_one_case_run_says_not_measured(project: Any, fake_model: Any) -> None:
    from tests.conftest import scenario

    server = fake_model([Rule("", [answer("You're welcome!")])])
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario(ABSTAIN_CASES))
    result = project.run("-k", "thanks-0")
    assert project.report()["summary"]["deployability"]["verdict"] == "NOT MEASURED"
    result.stdout.fnmatch_lines(["*NOT MEASURED: too few cases on irrelevance (1 < 10)*"])


def test_the_language_gap_on_twin_jobs() -> None:
    from pytest_tooleval.scoring.aggregate import language_gap

    def twin(job: str | None, language: str, value: float, name: str) -> CaseResult:
        case = result("PASS" if value else "FAIL", {"tool": value}, f"{language}.json::{name}")
        return case.model_copy(update={"job": job, "language": language})

    results = [
        twin("water-bill", "en", 1.0, "a"), twin("water-bill", "tr", 0.0, "b"),
        twin("water-bill", "tr", 1.0, "c"),  # a second register: averaged within the job
        twin("door-code", "en", 1.0, "d"), twin("door-code", "tr", 1.0, "e"),
        twin("en-only", "en", 0.0, "f"), twin(None, "tr", 0.0, "g"),
    ]
    gap = language_gap(results)
    assert gap.jobs == 2 and gap.languages == ["en", "tr"]
    assert gap.scores == {"en": 100.0, "tr": 75.0}
    assert gap.gap == -25.0 and gap.gap_is == "tr − en"
    assert gap.interval is None  # 2 jobs: too few to resample
    assert language_gap([twin("x", "en", 1.0, "a")]).jobs == 0
    # From 20 jobs the gap has its interval over the jobs: 20 alike in both languages and
    # 5 that only English gets right give a gap of -20 points, between its bounds.
    many = [twin(f"j{i}", lang, 0.0 if (lang == "tr" and i < 5) else 1.0, f"{lang}{i}")
            for i in range(25) for lang in ("en", "tr")]
    gap = language_gap(many)
    assert gap.gap == -20.0 and gap.interval is not None
    assert -40.0 < gap.interval.low < -20.0 < gap.interval.high < 0.0
    # Each language's score carries its interval over the jobs (none under 5 jobs, as for
    # the two above): Wilson where every job scores 0 or 100 (25 of 25, 20 of 25) ...
    assert language_gap(results).score_intervals == {}
    assert {lang: (i.low, i.high, i.method) for lang, i in gap.score_intervals.items()} == {
        "en": (86.6808, 100.0, "wilson"), "tr": (60.869, 91.1394, "wilson")}
    # ... else the bootstrap over the jobs' scores (one tr job scores 50)
    mixed = language_gap([*many, twin("j0", "tr", 1.0, "tr0-formal")])
    tr = mixed.score_intervals["tr"]
    assert mixed.scores["tr"] == 82.0 and tr.method == "bootstrap"
    assert 60.0 < tr.low < 82.0 < tr.high < 100.0
    line = next(line for line in render_markdown(make_report(many)).splitlines()
                if line.startswith("Language gap"))
    assert "en 100.0 [86.7–100.0], tr 80.0 [60.9–91.1]; gap (tr − en) -20.0 [" in line
    assert ("each language's score by the bootstrap over the twin jobs (Wilson's where each "
            "job scores 0 or 100), the gap by a paired bootstrap") in interval_note(
        make_report(many).summary)


def test_the_remembered_router_routes_like_the_router_and_hands_out_copies():
    from pytest_tooleval.router.base import Remembered
    from pytest_tooleval.router.trigger_router import TriggerRouter
    from pytest_tooleval.tools.base import ToolSpec

    def specs() -> list[ToolSpec]:  # fresh objects each time, as sessions build them
        return [ToolSpec(name, f"{name} tool", {"type": "object"}, "builtin")
                for name in ("calculator", "web_search", "read_file", "calendar_list")]

    calls = []
    inner = TriggerRouter(2)
    real = inner.route

    def counting(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    inner.route = counting  # type: ignore[method-assign]
    memo = Remembered(inner)
    first = memo.route("what is 17 * 23", "en", specs())
    again = memo.route("what is 17 * 23", "en", specs())
    other = memo.route("what's on my calendar tomorrow", "en", specs())
    assert calls == ["what is 17 * 23", "what's on my calendar tomorrow"]
    assert first == again == real("what is 17 * 23", "en", specs())
    assert other.tools == real("what's on my calendar tomorrow", "en", specs()).tools
    first.tools.append("mutated")  # a caller's copy is its own
    assert "mutated" not in memo.route("what is 17 * 23", "en", specs()).tools
    assert "mutated" not in again.tools
    assert memo.for_case(object()) is memo  # the default router has no per-case variant
    assert memo.describe() == inner.describe()


def test_the_remembered_router_tells_apart_tools_of_one_name_described_differently():
    """The trigger router reads descriptions (its cues): two scenario files' inline
    ``lookup`` tools, one for parcels and one for the canteen, route the same message
    differently, and the remembered router must not hand the first routing to the second."""
    from pytest_tooleval.router.base import Remembered
    from pytest_tooleval.router.trigger_router import TriggerRouter
    from pytest_tooleval.tools.base import ToolSpec

    def catalogue(description: str) -> list[ToolSpec]:
        return [*(ToolSpec(f"tool_{i:02}", f"Tool number {i}.", {}, "inline:a.yaml")
                  for i in range(10)), ToolSpec("lookup", description, {}, "inline:a.yaml")]

    parcels = catalogue("Look up a parcel's delivery status by tracking number.")
    canteen = catalogue("Look up today's lunch menu at the office canteen.")
    message = "where is my parcel, tracking number 44812"
    memo, plain = Remembered(TriggerRouter()), TriggerRouter()
    assert memo.route(message, "en", parcels) == plain.route(message, "en", parcels)
    assert memo.route(message, "en", canteen) == plain.route(message, "en", canteen)


def test_the_run_and_the_baselines_share_one_remembered_router():
    """The baselines re-route every step the run routed: with one router per k in the
    process, those routings are the run's (the trigger router costs ~1 ms a step)."""
    from pytest_tooleval.router import default_router
    from pytest_tooleval.router.ablation import OracleRouter, make_router
    from pytest_tooleval.router.base import Remembered

    router = make_router("triggers", 4)
    assert isinstance(router, Remembered) and router is default_router(4)
    assert default_router(5) is not router and default_router(4, fuzzy=False) is not router
    oracle = make_router("oracle", 4)
    assert isinstance(oracle, OracleRouter) and oracle.base is router


def test_the_baselines_run_each_case_once_whatever_the_repeats() -> None:
    """With --tooleval-repeat 3 the run's results hold three tries of each case; the
    policies are scripted, so a case is run once for them, not once per try (three times
    the time, and a table counting tries as cases)."""
    from pytest_tooleval.scoring.baselines import refs_for_results

    path = ROOT / "benchmarks" / "example.json"
    names = [c.name for c in load_case_file(path).cases]
    tries = [CaseResult(nodeid=f"example.json::{name}[r{r}]", file=str(path), case=name,
                        outcome=Outcome.PASS, repeat=r) for name in names for r in (1, 2, 3)]
    found = refs_for_results(tries, ROOT)
    assert [ref.case.name for ref in found] == names
