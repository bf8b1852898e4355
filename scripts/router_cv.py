"""Cross-validate the router's learned lexical cue (router/lexical.py) and print figures.

    python scripts/router_cv.py                      # 10 folds by job over the training set
    python scripts/router_cv.py --by-source          # train on the other sources, test on one
    python scripts/router_cv.py --test evals/router/6         # a folder never trained on
    python scripts/router_cv.py --by-source --triggers DIR     # older trigger files
    python scripts/router_cv.py --typos                 # typo tolerance, on misspelt messages
    python scripts/router_cv.py --by-source --without repository   # one mechanism switched off

The training set is ``SOURCES`` of ``scripts/build_lexical_model.py`` (the corpus and the
router evaluation sets under ``evals/router/``: both halves of a spent set, ``SPENT``, the
tuning half of any other; figures are printed per source and half). A fold holds whole
jobs (a job's register variants together; a case without a job is its own unit), assigned
by a hash of the unit.
For each held-out step the router is run exactly as ``tooleval check`` runs it (same
catalogue, a chain's previous expected tools kept), once without the lexical model and
once with a model trained on the other folds, and the script prints per scope: recall,
and the steps served only by the fallback (every covering route has a tool shown only as
a filler). Steps expecting no tool (irrelevance) are routed too: how many got a learned
vote, and how many side-effecting tools (tools/names.py) they were shown.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pytest_tooleval.check.report import CheckReport, Tally
from pytest_tooleval.check.static import _catalogue, _fallback_only, _route_case
from pytest_tooleval.router import trigger_router
from pytest_tooleval.router.catalogue import offered_builtin_names
from pytest_tooleval.router.lexical import LexicalModel
from pytest_tooleval.router.trigger_router import TriggerRouter
from pytest_tooleval.tools.names import SIDE_EFFECTING_BUILTINS

# The training set is the repository's, read by scripts/ (the package never reads it).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from scripts.build_lexical_model import (
    ROOT,
    SOURCES,
    SourceCase,
    build,
    gather,
    iter_cases,
)

FOLDS = 10
#: Mechanisms ``--without`` can switch off (the fourth round's, docs/dev/router.md), to measure
#: each on a source it was not written from (with ``--by-source``).
MECHANISMS = ("confirmed", "iver", "glued", "voiced", "repository", "courtesy")


def switch_off(name: str) -> None:
    """Switch one mechanism off in this process (before anything is routed), by replacing
    the name the router's module looks up: a name that has moved is an error, not a silent
    no-op."""
    import re
    from types import ModuleType

    from pytest_tooleval.text import dialect, normalize

    def replace(module: ModuleType, attribute: str, value: object) -> None:
        if not hasattr(module, attribute):
            raise SystemExit(f"--without {name}: {module.__name__}.{attribute} is gone; "
                             "update switch_off to where the mechanism lives now")
        setattr(module, attribute, value)

    if name == "confirmed":
        replace(trigger_router, "confirmed", lambda deferred, scores, text: [])
    elif name == "iver":
        replace(dialect, "_quickly", lambda word: None)
    elif name == "glued":
        replace(normalize, "_GLUED_UNIT", re.compile(r"(?!)"))
    elif name == "voiced":
        replace(trigger_router, "voiceless", lambda word: word)
    elif name == "repository":
        replace(trigger_router, "repository_frame", lambda *a: [])
    elif name == "courtesy":
        replace(trigger_router, "is_courtesy", lambda *a: False)
    else:
        raise SystemExit(f"--without: unknown mechanism {name!r}; one of {MECHANISMS}")


def fold_of(unit: str, folds: int = FOLDS) -> int:
    return int(hashlib.sha256(unit.encode()).hexdigest(), 16) % folds


@dataclass
class Figures:
    """One router variant's tallies over the held-out steps."""

    report: CheckReport = field(default_factory=lambda: CheckReport(k=9))
    by_source: dict[str, CheckReport] = field(default_factory=dict)
    irrelevance_steps: int = 0
    irrelevance_learned: int = 0  # irrelevance steps where the model voted for a tool
    irrelevance_side_effecting: int = 0  # side-effecting tools shown, summed over steps
    # The model alone (as if no trigger, cue or class had fired), over held-out tool steps:
    alone_steps: int = 0
    alone_voted: int = 0  # the model voted (best tool above the threshold)
    alone_right: int = 0  # an expected tool among its votes
    # Held-out tool steps served only by a filler: "source | message | expected | shown".
    no_signal: list[str] = field(default_factory=list)
    # Irrelevance steps that got a learned vote: "source | message | voted tools".
    irrelevance_voted: list[str] = field(default_factory=list)


def _route(figures: Figures, router: TriggerRouter, found: SourceCase, offered: set[str]) -> None:
    case_file, case = found.case_file, found.case
    specs = _catalogue(offered | set(case_file.inline_tool_names), case_file, str(found.path))
    available = offered | set(case_file.inline_tool_names)
    label = f"{found.source} {found.half}" if found.half else found.source
    for report in (figures.report, figures.by_source.setdefault(label, CheckReport(k=9))):
        _route_case(report, router, case, case_file.language, str(found.path), specs, available)
    previous: tuple[str, ...] = ()
    for step in case.steps:
        keep, previous = previous, tuple(step.expected_tools)
        if step.expected_tools:
            routing = router.route(step.message, case_file.language, specs, keep)
            if any(set(route) <= set(routing.tools) for route in step.routes) and all(
                _fallback_only(routing, route) for route in step.routes
                if set(route) <= set(routing.tools)
            ):
                figures.no_signal.append(
                    f"{label} | {step.message} | {'+'.join(step.expected_tools)} | "
                    f"{', '.join(routing.tools)}"
                )
            if router.lexical is not None:
                votes = [name for name, _ in router.lexical.votes(
                    step.message, case_file.language, [spec.name for spec in specs])]
                figures.alone_steps += 1
                figures.alone_voted += bool(votes)
                figures.alone_right += bool(set(votes) & set(step.expected_tools))
            continue
        routing = router.route(step.message, case_file.language, specs)
        figures.irrelevance_steps += 1
        voted = [tool for tool, why in routing.reasons.items()
                 if any(reason.startswith("learned") for reason in why)]
        figures.irrelevance_learned += bool(voted)
        if voted:
            figures.irrelevance_voted.append(f"{label} | {step.message} | {', '.join(voted)}")
        figures.irrelevance_side_effecting += sum(
            tool in SIDE_EFFECTING_BUILTINS for tool in routing.tools
        )


def _rows(report: CheckReport) -> dict[str, Tally]:
    rows = {"overall": report.recall}
    for title, table in (
        ("language", report.by_language),
        ("group", report.by_group),
        ("register", report.by_register),
    ):
        rows.update({f"{title} {key}": table[key] for key in sorted(table)})
    rows["fallback-only"] = report.fallback_only
    return rows


def _print_steps(figures: Figures) -> None:
    """The held-out misses and no-signal steps of a variant (what to look at next)."""
    print(f"\nmisses ({len(figures.report.misses)}):")
    for miss in figures.report.misses:
        print(f"  {miss.file}::{miss.case} | {miss.message} | missing {'+'.join(miss.missing)}"
              f" | {miss.miss_class} | shown {', '.join(miss.shown)}")
    print(f"\nserved only by the fallback ({len(figures.no_signal)}):")
    for line in figures.no_signal:
        print(f"  {line}")
    print(f"\nirrelevance steps with a learned vote ({len(figures.irrelevance_voted)}):")
    for line in figures.irrelevance_voted:
        print(f"  {line}")


def _print(
    title: str,
    before: Figures,
    after: Figures,
    heads: tuple[str, str] = ("without the lexical cue", "with it"),
) -> None:
    print(f"\n### {title}\n")
    print(f"| scope | {heads[0]} | {heads[1]} |")
    print("|---|---|---|")
    sections = [("", before.report, after.report)] + [
        (f"{source}: ", before.by_source[source], after.by_source[source])
        for source in sorted(before.by_source)
        if len(before.by_source) > 1
    ]
    for prefix, left, right in sections:
        a, b = _rows(left), _rows(right)
        for scope in a:
            if prefix and not scope.startswith(("overall", "fallback", "language")):
                continue
            print(f"| {prefix}{scope} | {a[scope].render().strip()} | "
                  f"{b.get(scope, Tally()).render().strip()} |")
    if after.alone_steps:
        print(
            f"\nthe model alone on the {after.alone_steps} held-out tool steps (as if nothing "
            f"else fired): voted on {after.alone_voted} "
            f"({after.alone_voted / after.alone_steps:.1%}), an expected tool among its votes "
            f"on {after.alone_right} ({after.alone_right / after.alone_steps:.1%}; "
            f"{after.alone_right / max(after.alone_voted, 1):.1%} of its votes)"
        )
    for label, figures in ((heads[0], before), (heads[1], after)):
        print(
            f"\nirrelevance steps, {label}: {figures.irrelevance_steps}; a learned vote on "
            f"{figures.irrelevance_learned}; side-effecting tools shown "
            f"{figures.irrelevance_side_effecting} "
            f"({figures.irrelevance_side_effecting / max(figures.irrelevance_steps, 1):.2f} a step)"
        )


def _evaluate(
    cases: Sequence[SourceCase], model: LexicalModel | None, offered: set[str]
) -> Figures:
    figures = Figures()
    router = TriggerRouter(9, lexical=model if model is not None else False)
    for found in cases:
        _route(figures, router, found, offered)
    return figures


def cross_validate(folds: int, offered: set[str]) -> tuple[Figures, Figures]:
    cases = list(iter_cases())
    samples = gather()
    before = _evaluate(cases, None, offered)
    after = Figures()
    for fold in range(folds):
        held = [c for c in cases if fold_of(c.unit, folds) == fold]
        model = build(samples=[s for s in samples if fold_of(s.unit, folds) != fold])
        router = TriggerRouter(9, lexical=model)
        for found in held:
            _route(after, router, found, offered)
    return before, after


def by_source(offered: set[str]) -> tuple[Figures, Figures]:
    cases = list(iter_cases())
    samples = gather()
    before = _evaluate(cases, None, offered)
    after = Figures()
    for source in SOURCES:
        model = build(samples=[s for s in samples if s.source != source])
        router = TriggerRouter(9, lexical=model)
        for found in (c for c in cases if c.source == source):
            _route(after, router, found, offered)
    return before, after


def typo(message: str) -> str:
    """One deterministic edit (a swap, a drop, a doubling or a neighbour key) in the
    message's longest word of six letters or more; the message itself when it has none."""
    words = [w for w in message.split() if sum(c.isalpha() for c in w) >= 6]
    if not words:
        return message
    word = max(words, key=len)
    digest = int(hashlib.sha256(message.encode()).hexdigest(), 16)
    at = 1 + digest % (len(word) - 3)  # never the first letter
    kind = (digest // 997) % 4
    if kind == 0:
        edited = word[:at] + word[at + 1] + word[at] + word[at + 2:]
    elif kind == 1:
        edited = word[:at] + word[at + 1:]
    elif kind == 2:
        edited = word[:at] + word[at] + word[at:]
    else:
        edited = word[:at] + "e" if word[at] != "e" else word[:at] + "a"
        edited += word[at + 1:]
    return message.replace(word, edited, 1)


def _misspelt(found: SourceCase) -> SourceCase:
    steps = [step.model_copy(update={"message": typo(step.message)}) for step in found.case.steps]
    case = found.case.model_copy(update={"steps": steps})
    return SourceCase(found.path, found.case_file, case, found.unit, found.source)


def typos(offered: set[str], misspell: bool, folds: int) -> tuple[Figures, Figures]:
    """Fuzzy trigger matching off and on, by fold: the lexical cue (on in both) and the
    known words that fuzzy matching never respells come from the other folds, so the
    held-out messages' words are as new to it as a user's."""
    cases = list(iter_cases())
    samples = gather()
    out = (Figures(), Figures())
    for fold in range(folds):
        model = build(samples=[s for s in samples if fold_of(s.unit, folds) != fold])
        held = [c for c in cases if fold_of(c.unit, folds) == fold]
        if misspell:
            held = [_misspelt(found) for found in held]
        for figures, fuzzy in zip(out, (False, True), strict=True):
            router = TriggerRouter(9, lexical=model, fuzzy=fuzzy)
            for found in held:
                _route(figures, router, found, offered)
    return out


def held_out_folder(folder: Path, offered: set[str]) -> tuple[Figures, Figures]:
    cases = list(iter_cases(folder.parent, (folder.name,)))
    model = build(samples=gather())
    return _evaluate(cases, None, offered), _evaluate(cases, model, offered)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folds", type=int, default=FOLDS)
    parser.add_argument("--by-source", action="store_true")
    parser.add_argument("--typos", action="store_true")
    parser.add_argument("--steps", action="store_true",
                        help="also list the second variant's misses and no-signal steps")
    parser.add_argument("--test", type=Path, action="append", default=[],
                        help="a folder never trained on: model from the whole training set")
    parser.add_argument("--triggers", type=Path, metavar="DIR",
                        help="route with the trigger files of DIR instead of the package's "
                        "(e.g. an older state, to see the cue where the triggers know less)")
    parser.add_argument("--without", action="append", default=[], choices=MECHANISMS,
                        help="switch a mechanism off (repeatable)")
    args = parser.parse_args(argv)
    for name in args.without:
        switch_off(name)
        print(f"switched off: {name}")
    if args.triggers:
        trigger_router.TRIGGER_DIR = args.triggers
        trigger_router._compiled.cache_clear()
        print(f"trigger files: {sorted(p.name for p in args.triggers.glob('*.yaml'))} "
              f"from {args.triggers}")
    offered = offered_builtin_names()
    print(f"training sources: {', '.join(SOURCES)} under {ROOT}")
    if args.test:
        for folder in args.test:
            before, after = held_out_folder(folder, offered)
            _print(f"held-out folder {folder}", before, after)
        return 0
    if args.typos:
        for misspell in (False, True):
            before, after = typos(offered, misspell, args.folds)
            label = "one typo in each message's longest word" if misspell else "as written"
            _print(f"typo tolerance off / on, {label}", before, after,
                   ("fuzzy off", "fuzzy on"))
        return 0
    if args.by_source:
        before, after = by_source(offered)
        _print("leave one source out", before, after)
        if args.steps:
            _print_steps(after)
        return 0
    before, after = cross_validate(args.folds, offered)
    _print(f"{args.folds}-fold cross-validation by job", before, after)
    if args.steps:
        _print_steps(after)
    return 0


if __name__ == "__main__":
    sys.exit(main())
