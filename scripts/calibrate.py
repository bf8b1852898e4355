"""Calibrate the statistics: synthetic models of known quality on the real corpus.

A synthetic model follows each case's gold path (as ``tooleval check --oracle`` does) but,
at each step and with known probabilities per category, calls no tool, calls a wrong tool
(the step's forbidden one where it has one, else a name no catalogue has), drops a fact
from its answer, or calls a tool where none is wanted. Every plan a case can take (one
behaviour per step) is run once through the real session, tool loop, world and scorer
(``scoring.score_case``); a run is deterministic given its plan, so a simulated run of the
model draws each case's plan and reads its result (tests/test_calibrate.py shows that a
fresh run of the loop gives the same result). That also makes each case's outcome
distribution, and so the true score, exact.

The score's interval resamples cases: it is for the population of cases the corpus stands
for, and model randomness. It is measured two ways, both against the same truth, the
model's expected score over the corpus's cases:
- cases drawn: each simulated run draws its cases from the corpus (with replacement,
  within each category, as the bootstrap does): the population the interval is for;
- cases fixed: every run scores the whole corpus, so only the model varies (the interval
  is conservative there: it also carries the spread between cases).

Then ``compare``'s verdict (scoring/paired.py, as ``tooleval compare`` decides it) on two
runs of the same model (a regression called is a false alarm), and on a model whose pass
rate is 5 points lower, against the power ``tooleval power``'s formula predicts.

Usage: python scripts/calibrate.py [--runs 300] [--cases N] [--seed 1] [PATH ...]
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pytest_tooleval.cases.evidence import evidence_found
from pytest_tooleval.cases.identity import content_hash
from pytest_tooleval.cases.load import load_case_file
from pytest_tooleval.cases.model import Case, Step, case_today
from pytest_tooleval.check.files import collect_files
from pytest_tooleval.check.oracle import tool_outputs
from pytest_tooleval.engine.session import CaseRef, ModelSession
from pytest_tooleval.models.base import Backend, Message, ModelTurn, RawCall
from pytest_tooleval.result import CaseResult, Outcome, repeat_suffix
from pytest_tooleval.router import default_router
from pytest_tooleval.scoring.aggregate import WEIGHTS, axes_of, score_of
from pytest_tooleval.scoring.intervals import figure_intervals
from pytest_tooleval.scoring.outcome import score_case
from pytest_tooleval.scoring.paired import decide, pair_cases, paired_rows
from pytest_tooleval.scoring.repeats import group_tries
from pytest_tooleval.scoring.settings import IntervalSettings
from pytest_tooleval.scoring.statistics import mcnemar_power
from pytest_tooleval.tools.base import CaseContext, ToolProvider, ToolResult, ToolSpec
from pytest_tooleval.tools.builtin import BuiltinToolProvider
from pytest_tooleval.tools.names import SIDE_EFFECTING_BUILTINS
from pytest_tooleval.wiring import CaseWorlds

ROOT = Path(__file__).resolve().parent.parent
#: Per category, the probability of each slip at a step (the model follows the gold path
#: otherwise). "none": no tool call; "wrong": a wrong tool; "drop": a fact left out of the
#: answer; "call": a tool call where none is wanted.
MODEL: dict[str, dict[str, float]] = {
    "irrelevance": {"call": 0.15},
    "tool": {"none": 0.05, "wrong": 0.07, "drop": 0.10},
    "chain": {"none": 0.04, "wrong": 0.05, "drop": 0.08, "call": 0.15},
}
#: A tool name no catalogue has: the wrong call of a step without a forbidden tool.
NO_SUCH_TOOL = "no_such_tool"
LEVEL = 0.95
TOLERANCE = 1.0  # compare's default (points)
DIFFERENCE = 0.05  # the pass-rate difference whose detection is measured
#: Worlds are copied for thousands of runs: in memory where the machine has it.
SCRATCH = "/dev/shm" if Path("/dev/shm").is_dir() else None


def behaviours(step: Step) -> list[str]:
    """What the model may do at this step; the first is following the gold path."""
    if not step.routes:
        return ["follow", "call"]
    return ["follow", "none", "wrong", *(["drop"] if step.evidence else [])]


class SyntheticModel(Backend):
    """Follows the plan it is given: one behaviour per step (see ``behaviours``)."""

    mode = "synthetic"

    def __init__(self) -> None:
        self.case: Case | None = None
        self.plan: tuple[str, ...] = ()
        self.called: set[int] = set()
        self.language = "en"

    def prepare(self, case: Case, plan: tuple[str, ...], language: str) -> None:
        self.case, self.plan, self.called, self.language = case, plan, set(), language

    def complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelTurn:
        assert self.case is not None
        index = sum(1 for m in messages if m["role"] == "user") - 1
        step, behaviour = self.case.steps[index], self.plan[index]
        if index not in self.called:
            self.called.add(index)
            calls = self._calls(step, behaviour, index)
            if calls:
                return ModelTurn("", calls=calls, finish_reason="tool_calls")
        answer = "" if behaviour == "none" else tool_outputs(messages)
        if behaviour == "drop":
            first = step.evidence_alternatives()[0]
            answer = "\n".join(line for line in answer.splitlines()
                               if not evidence_found(first, line, self.language))
        return ModelTurn(answer, finish_reason="stop")

    @staticmethod
    def _calls(step: Step, behaviour: str, index: int) -> list[RawCall]:
        if behaviour in ("follow", "drop"):
            return [RawCall(c.tool, json.dumps(c.args, ensure_ascii=False),
                            call_id=f"gold_{index}_{i}") for i, c in enumerate(step.gold or [])]
        if behaviour == "wrong":
            return [RawCall((step.forbidden or [NO_SUCH_TOOL])[0], "{}", call_id=f"w_{index}")]
        if behaviour == "call":
            return [RawCall(NO_SUCH_TOOL, "{}", call_id=f"c_{index}")]
        return []


class Remembered(ToolProvider):
    """The built-in tools, each reading call's result kept by case, the writes made before
    it and the call: a case's world is the same after the same writes, so the same reading
    returns the same text (a fresh run of the loop agrees: tests/test_calibrate.py). Writes
    always run. Reading is most of a plan's time, and plans repeat the gold path's reads."""

    def __init__(self, inner: BuiltinToolProvider) -> None:
        self.inner = inner
        self.source = inner.source
        self.kept: dict[tuple[Any, ...], ToolResult] = {}
        self.case: tuple[str, str] = ("", "")
        self.writes: list[tuple[str, str]] = []

    @property
    def world(self) -> Any:
        return self.inner.world

    def list_tools(self) -> list[ToolSpec]:
        return self.inner.list_tools()

    def begin_case(self, context: CaseContext) -> None:
        self.case, self.writes = (context.file_path, context.case_name), []
        self.inner.begin_case(context)

    def end_case(self) -> None:
        self.inner.end_case()

    def close(self) -> None:
        self.inner.close()

    def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        call = (name, json.dumps(arguments, sort_keys=True, default=str))
        if name in SIDE_EFFECTING_BUILTINS:
            self.writes.append(call)
            return self.inner.call(name, arguments)
        key = (self.case, tuple(self.writes), call)
        if key not in self.kept:
            self.kept[key] = self.inner.call(name, arguments)
        return self.kept[key]


class Runner:
    """The real session over the built-in world, as a run wires it (a fresh world per
    case, the template shared for reading), with the synthetic model in the model's place."""

    def __init__(self, remember: bool = True) -> None:
        self.scratch = Path(tempfile.mkdtemp(prefix="tooleval-calibrate-", dir=SCRATCH))
        worlds = CaseWorlds(lambda: self.scratch)
        self.model = SyntheticModel()
        router = default_router()
        builtin = BuiltinToolProvider(worlds.world_for_case, worlds.discard,
                                      shared_world=worlds.shared)
        self.session = ModelSession(
            backend_factory=lambda: self.model,
            providers=[Remembered(builtin) if remember else builtin],
            router_factory=lambda case_file: router)

    def run(self, ref: CaseRef, plan: tuple[str, ...]) -> CaseResult:
        """The case's result when the model follows ``plan``."""
        language = ref.case_file.language
        self.model.prepare(ref.case, plan, language)
        run = self.session.run(ref)
        if run.error is not None:
            raise RuntimeError(f"{ref.nodeid}: plan {plan}: the run failed "
                               f"({run.error.kind}): {run.error.message}")
        scored = score_case(ref.case, run.transcripts, language, case_today(ref.case_file))
        return CaseResult(nodeid=ref.nodeid, file=ref.path, case=ref.case.name,
                          category=ref.case.category, group=ref.case.group, language=language,
                          case_hash=content_hash(ref.case_file, ref.case),
                          outcome=scored.outcome, reasons=scored.reasons, axes=scored.axes)

    def close(self) -> None:
        self.session.close()
        shutil.rmtree(self.scratch, ignore_errors=True)


@dataclass
class CaseTable:
    """Every plan of a case and its result."""

    ref: CaseRef
    plans: list[tuple[str, ...]]
    results: list[CaseResult]

    @property
    def category(self) -> str:
        return self.ref.case.category


def plans_of(case: Case) -> list[tuple[str, ...]]:
    return list(itertools.product(*(behaviours(step) for step in case.steps)))


def load_refs(paths: Sequence[Path], cases: int | None) -> list[CaseRef]:
    """The corpus's cases; with ``cases``, an evenly spread subset of that many."""
    refs = []
    for path in collect_files(paths):
        case_file = load_case_file(path)
        source = str(path.relative_to(ROOT) if path.is_absolute() else path)
        refs += [CaseRef(f"{source}::{case.name}", source, case_file, case)
                 for case in case_file.cases]
    if cases is not None and cases < len(refs):
        refs = [refs[round(i * len(refs) / cases)] for i in range(cases)]
    return refs


def build_tables(refs: Sequence[CaseRef]) -> tuple[list[CaseTable], list[str]]:
    """Each case's result under every plan; the cases whose gold path cannot run here are
    left out and named."""
    runner = Runner()
    tables, skipped = [], []
    try:
        for ref in refs:
            plans = plans_of(ref.case)
            try:
                tables.append(CaseTable(ref, plans, [runner.run(ref, p) for p in plans]))
            except RuntimeError as exc:
                skipped.append(str(exc))
    finally:
        runner.close()
    return tables, skipped


# ------------------------------------------------------------------------- the model


def plan_probabilities(table: CaseTable, scale: float) -> np.ndarray:
    """Each plan's probability under the model with every slip's probability × scale."""
    slips = MODEL.get(table.category, {})
    per_step = []
    for step in table.ref.case.steps:
        options = behaviours(step)
        p = {b: scale * slips.get(b, 0.0) for b in options[1:]}
        p["follow"] = 1.0 - sum(p.values())
        per_step.append(p)
    return np.array([math.prod(per_step[k][b] for k, b in enumerate(plan))
                     for plan in table.plans])


@dataclass
class Truth:
    score: float
    axes: dict[str, float]
    pass_rate: float
    #: Per case: the probability that it passes.
    passes: np.ndarray


def truth(tables: Sequence[CaseTable], probabilities: Sequence[np.ndarray]) -> Truth:
    """The model's expected figures over these cases (exact: every plan is weighed)."""
    sums: dict[str, float] = dict.fromkeys(WEIGHTS, 0.0)
    counts: Counter[str] = Counter()
    passes = []
    for table, p in zip(tables, probabilities, strict=True):
        for axis in table.results[0].axes:  # the same axes under every plan
            sums[axis] += float(np.dot(p, [r.axes[axis] for r in table.results]))
            counts[axis] += 1
        passes.append(float(np.dot(p, [r.outcome is Outcome.PASS for r in table.results])))
    axes = {a: sums[a] / counts[a] for a in WEIGHTS if counts[a]}
    total = sum(WEIGHTS[a] for a in axes)
    score = 100.0 * sum(WEIGHTS[a] * v for a, v in axes.items()) / total
    return Truth(score, axes, float(np.mean(passes)), np.array(passes))


class Sampler:
    """Draws a run of the model: each case's plan from its distribution."""

    def __init__(self, tables: Sequence[CaseTable], probabilities: Sequence[np.ndarray]):
        self.tables = tables
        width = max(len(p) for p in probabilities)
        self.cumulative = np.ones((len(tables), width))
        for i, p in enumerate(probabilities):
            self.cumulative[i, : len(p)] = np.cumsum(p)

    def run(self, rng: np.random.Generator, cases: np.ndarray | None = None,
            tries: int = 1) -> list[CaseResult]:
        """One run over ``cases`` (indices; all by default; a case drawn twice counts as two
        cases), each case ``tries`` times (``--tooleval-repeat``)."""
        chosen = np.arange(len(self.tables)) if cases is None else cases
        draws = rng.random((tries, len(chosen)))
        picks = (draws[:, :, None] >= self.cumulative[chosen][None, :, :]).sum(axis=2)
        picks = np.minimum(picks, self.cumulative.shape[1] - 1)
        results = []
        for j, i in enumerate(chosen):
            for t in range(tries):
                result = self.tables[i].results[picks[t, j]]
                if cases is not None or tries > 1:
                    repeat = t + 1 if tries > 1 else None
                    nodeid = f"{result.nodeid}#{j}" if cases is not None else result.nodeid
                    result = result.model_copy(update={
                        "nodeid": nodeid + (repeat_suffix(repeat) if repeat else ""),
                        "repeat": repeat})
                results.append(result)
        return results


def stratified_draw(tables: Sequence[CaseTable], rng: np.random.Generator) -> np.ndarray:
    """Case indices drawn with replacement within each category, its count kept."""
    chosen = []
    for category in sorted({t.category for t in tables}):
        members = np.array([i for i, t in enumerate(tables) if t.category == category])
        chosen.append(rng.choice(members, size=len(members), replace=True))
    return np.concatenate(chosen)


# ---------------------------------------------------------------------- experiments


def coverage(sampler: Sampler, target: Truth, runs: int, rng: np.random.Generator, *,
             drawn: bool, tries: int = 1) -> dict[str, Any]:
    """How often the score's and each axis's interval holds the truth, and the mean
    measured score."""
    settings = IntervalSettings(level=LEVEL)
    held: Counter[str] = Counter()
    measured = []
    for _ in range(runs):
        cases = stratified_draw(sampler.tables, rng) if drawn else None
        results = sampler.run(rng, cases, tries)
        score, axes = figure_intervals(group_tries(results), WEIGHTS, settings)
        measured.append(score_of(axes_of(results)) or 0.0)
        held["score"] += bool(score and score.contains(target.score))
        for axis, value in target.axes.items():
            interval = axes.get(axis)
            held[axis] += bool(interval and interval.contains(value))
    return {"runs": runs, "measured": float(np.mean(measured)),
            "coverage": {k: held[k] / runs for k in ["score", *target.axes]}}


def comparisons(new: Sampler, base: Sampler, runs: int,
                rng: np.random.Generator) -> dict[str, float]:
    """Share of paired runs in which compare calls a regression: overall, and per figure."""
    called: Counter[str] = Counter()
    for _ in range(runs):
        pairs = pair_cases(new.run(rng), base.run(rng)).pairs
        rows = paired_rows(pairs, WEIGHTS, level=LEVEL)
        verdict = decide(rows, level=LEVEL, tolerance=TOLERANCE)
        called["verdict: regression"] += verdict.status == "regression"
        called["verdict: improvement"] += verdict.status == "improvement"
        for row in rows:
            called[row.name] += row.status == "regression"
    return {k: v / runs for k, v in called.items()}


def scale_for(tables: Sequence[CaseTable], pass_rate: float) -> float:
    """The slip scale at which the model's expected pass rate is ``pass_rate``."""
    low, high = 1.0, 1.0 / max(sum(m.values()) for m in MODEL.values())
    for _ in range(40):
        middle = (low + high) / 2
        rate = truth(tables, [plan_probabilities(t, middle) for t in tables]).pass_rate
        low, high = (middle, high) if rate > pass_rate else (low, middle)
    return (low + high) / 2


def calibrate(tables: Sequence[CaseTable], runs: int, seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    probabilities = [plan_probabilities(t, 1.0) for t in tables]
    model = truth(tables, probabilities)
    sampler = Sampler(tables, probabilities)
    found: dict[str, Any] = {"cases": len(tables), "runs": runs, "truth": {
        "score": model.score, "axes": model.axes, "pass_rate": model.pass_rate}}
    found["drawn"] = coverage(sampler, model, runs, rng, drawn=True)
    found["fixed"] = coverage(sampler, model, runs // 2, rng, drawn=False)
    found["drawn, 3 tries"] = coverage(sampler, model, runs // 4, rng, drawn=True, tries=3)
    pairs = max(1, runs // 2)  # a paired compare costs about four intervals
    found["same model"] = comparisons(sampler, sampler, pairs, rng)
    worse_scale = scale_for(tables, model.pass_rate - DIFFERENCE)
    worse_p = [plan_probabilities(t, worse_scale) for t in tables]
    worse = truth(tables, worse_p)
    found["worse"] = {"scale": worse_scale, "score": worse.score, "pass_rate": worse.pass_rate,
                      "called": comparisons(Sampler(tables, worse_p), sampler, pairs // 2, rng)}
    # tooleval power's prediction: the McNemar formula at its α, with the share of cases
    # that flip between the two models' runs (at least the difference, as it plans).
    a, b = model.passes, worse.passes
    discordance = float(np.mean(a * (1 - b) + b * (1 - a)))
    psi = max(discordance, model.pass_rate - worse.pass_rate)
    deciding = 2 + len(model.axes)  # score, pass rate and each axis (scoring/paired.py)
    found["predicted"] = {
        "discordance": discordance,
        "power": mcnemar_power(len(tables), model.pass_rate - worse.pass_rate, psi, 1 - LEVEL),
        "power corrected": mcnemar_power(len(tables), model.pass_rate - worse.pass_rate,
                                               psi, (1 - LEVEL) / deciding),
    }
    return found


def render(found: dict[str, Any]) -> list[str]:
    t = found["truth"]
    lines = [f"{found['cases']} cases, {found['runs']} simulated runs per figure; "
             f"true score {t['score']:.2f}, pass rate {100 * t['pass_rate']:.1f} %",
             "", f"coverage of the {LEVEL:.0%} intervals (goal 93-97 %):",
             f"  {'design':<16} {'measured':>8}  " + "  ".join(
                 f"{k:>11}" for k in ["score", *t["axes"]])]
    for design in ("drawn", "fixed", "drawn, 3 tries"):
        row = found[design]
        lines.append(f"  {design:<16} {row['measured']:8.2f}  " + "  ".join(
            f"{100 * v:10.1f}%" for v in row["coverage"].values()) + f"   ({row['runs']} runs)")
    lines.append("  (true " + ", ".join(f"{a} {100 * v:.2f}" for a, v in t["axes"].items())
                 + ")")
    same, worse, predicted = found["same model"], found["worse"], found["predicted"]
    lines += ["", "compare, two runs of the same model (false alarms; goal <= 5 %):",
              f"  regression called {100 * same.get('verdict: regression', 0):.1f} %, "
              f"improvement called {100 * same.get('verdict: improvement', 0):.1f} %",
              "", f"compare, a model {100 * DIFFERENCE:g} points lower in pass rate "
              f"(score {worse['score']:.2f} against {t['score']:.2f}):",
              f"  regression called {100 * worse['called'].get('verdict: regression', 0):.1f} %"
              f"; by the pass rate alone {100 * worse['called'].get('pass rate', 0):.1f} %, "
              f"by the score alone {100 * worse['called'].get('score', 0):.1f} %",
              f"  tooleval power predicts {100 * predicted['power']:.1f} % for the pass rate "
              f"(discordance {predicted['discordance']:.3f}); at compare's corrected α "
              f"{100 * predicted['power corrected']:.1f} %"]
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path,
                        default=[ROOT / "benchmarks", ROOT / "scenarios"])
    parser.add_argument("--runs", type=int, default=300,
                        help="simulated runs for the intervals (half as many compares)")
    parser.add_argument("--cases", type=int, help="an evenly spread subset of the corpus")
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args(argv)
    started = time.perf_counter()
    tables, skipped = build_tables(load_refs(options.paths, options.cases))
    for reason in skipped:
        print(f"skipped: {reason}", file=sys.stderr)
    print(f"{sum(len(t.plans) for t in tables)} plans run through the session, loop and "
          f"scorer in {time.perf_counter() - started:.0f} s")
    print("\n".join(render(calibrate(tables, options.runs, options.seed))))
    print(f"\n{time.perf_counter() - started:.0f} s in all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
