"""``tooleval route "message" [--language tr] [--k 9]``: the tools the configured
catalogue shows for a message, and why."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pytest_tooleval.cli.check import CATALOGUE_OPTIONS, configured, source_lines
from pytest_tooleval.cli.common import arg, command
from pytest_tooleval.config import ConfigError
from pytest_tooleval.router.trigger_router import TriggerRouter
from pytest_tooleval.text.stem import DEFAULT_STEMMER, STEMMERS
from pytest_tooleval.tools.base import ConfigurationError

_TURKISH_LETTERS = set("çğıöşüÇĞİÖŞÜ")


def guess_language(message: str) -> str:
    """Turkish when the message holds a Turkish letter, else English."""
    return "tr" if _TURKISH_LETTERS & set(message) else "en"


@command("tooleval route", __doc__,
         arg("message"),
         arg("--language", help="en, tr, … (default: tr if Turkish letters appear)"),
         *CATALOGUE_OPTIONS,
         arg("--json", action="store_true", help="print JSON"),
         arg("--stemmer", choices=STEMMERS, default=DEFAULT_STEMMER),
         errors=(ConfigError, ConfigurationError))
def main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    settings, catalogue = configured(args, [Path.cwd()])
    k = settings.k
    assert catalogue is not None
    language = args.language or guess_language(args.message)
    routing = TriggerRouter(k, stemmer=args.stemmer).route(args.message, language,
                                                            catalogue.specs)
    sources = source_lines(catalogue, None)
    if args.json:
        rows = [
            {"tool": t, "score": routing.scores.get(t, 0.0), "reasons": routing.reasons[t]}
            for t in routing.tools
        ]
        print(json.dumps({"language": language, "k": k, "catalogue": sources, "tools": rows},
                         ensure_ascii=False, indent=2))
        return 0
    print(f"{args.message!r} ({language}, k={k}):")
    for rank, tool in enumerate(routing.tools, start=1):
        print(
            f"{rank:>2}. {tool:<20} {routing.scores.get(tool, 0.0):5.2f}  "
            + "; ".join(routing.reasons.get(tool, []))
        )
    print(f"catalogue: {'; '.join(sources) or 'empty'}")
    return 0
