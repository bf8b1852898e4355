"""How the evidence matcher agrees with a careful human on realistic final answers.

Reads evals/answers/answers.yaml (answers written independently of the matcher, each with
its evidence and a human verdict) and prints the share of correct answers the matcher
accepts and of wrong answers it catches, overall and per class; `-v` lists the
disagreements. Exits 1 below the goal (97 % of correct accepted, 90 % of wrong caught).

    python scripts/answer_agreement.py [-v] [answers.yaml]
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import yaml

from pytest_tooleval.cases.evidence import evidence_found

ANSWERS = Path(__file__).resolve().parent.parent / "evals" / "answers"
DEFAULT = ANSWERS / "answers.yaml"
#: A case author's alternatives for the text facts of some sets, written blind to the answers.
ALTERNATIVES = ANSWERS / "text-alternatives.yaml"
GOAL_CORRECT, GOAL_WRONG = 97.0, 90.0


def accepted(entry: dict, alternatives: dict | None = None) -> bool:
    """Whether every evidence item (a string or a list of alternatives) is in the answer;
    ``alternatives`` (evidence string -> list) stands in for a text fact where it has one;
    an entry's ``today`` is its case's clock (day words: "yarın")."""
    items = [item if isinstance(item, list) else (alternatives or {}).get(item, [item])
             for item in entry["evidence"]]
    asked = [alt for alts in items for alt in alts]
    return all(evidence_found(alts, entry["answer"], entry["lang"], entry.get("today"), asked)
               for alts in items)


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    paths = [arg for arg in argv if arg != "-v"]
    path = Path(paths[0] if paths else DEFAULT)
    entries = yaml.safe_load(path.read_text("utf-8"))["answers"]
    listed = yaml.safe_load(ALTERNATIVES.read_text("utf-8"))["items"]
    alternatives = {(item["lang"], item["evidence"]): item["alternatives"] for item in listed
                    if item["set"] == path.stem}
    # (class, verdict) -> [agreeing, total]
    tally: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for entry in entries:
        agrees = accepted(entry) == (entry["verdict"] == "correct")
        for key in ((entry["class"], entry["verdict"]), ("all", entry["verdict"])):
            tally[key][0] += agrees
            tally[key][1] += 1
        if verbose and not agrees:
            print(f"  {entry['verdict']:7} {entry['class']:7} {entry['lang']} "
                  f"{entry['evidence']} | {entry['answer']}")

    def share(key: tuple[str, str]) -> float:
        good, total = tally[key]
        return 100.0 * good / total if total else 100.0

    for cls in sorted({c for c, _ in tally if c != "all"}) + ["all"]:
        ok, total_ok = tally[(cls, "correct")]
        caught, total_wrong = tally[(cls, "wrong")]
        print(f"{cls:8} correct matched {ok:3}/{total_ok:<3} {share((cls, 'correct')):5.1f} %"
              f"   wrong caught {caught:3}/{total_wrong:<3} {share((cls, 'wrong')):5.1f} %")
    if alternatives:
        text = [e for e in entries if e["class"] == "text"]
        with_alts = [accepted(e, {ev: alts for (lang, ev), alts in alternatives.items()
                                  if lang == e["lang"]}) == (e["verdict"] == "correct")
                     for e in text]
        right = [agrees for e, agrees in zip(text, with_alts, strict=True)
                 if e["verdict"] == "correct"]
        print(f"text with the case author's alternatives (text-alternatives.yaml): correct "
              f"matched {sum(right)}/{len(right)}, wrong caught "
              f"{sum(with_alts) - sum(right)}/{len(text) - len(right)}")
    return 0 if share(("all", "correct")) >= GOAL_CORRECT and \
        share(("all", "wrong")) >= GOAL_WRONG else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
