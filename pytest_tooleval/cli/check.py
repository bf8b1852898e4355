"""``tooleval check PATH…``: the no-model checks of ``check.static`` (guards, requires,
router coverage, near-duplicates), optionally the oracle; and the options and catalogue it
shares with ``tooleval route``."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

from pytest_tooleval.cases.duplicates import DEFAULT_SIMILARITY
from pytest_tooleval.cases.files import DEFAULT_PATTERNS, not_collected
from pytest_tooleval.check import cache
from pytest_tooleval.check.catalogue import ConfiguredCatalogue, configured_catalogue
from pytest_tooleval.check.files import UsageError, collect_files, not_run
from pytest_tooleval.check.report import CheckReport, write_router_doc
from pytest_tooleval.cli.common import Refused, arg, command
from pytest_tooleval.config import ConfigError, Settings
from pytest_tooleval.text.stem import DEFAULT_STEMMER, STEMMERS
from pytest_tooleval.tools import jail
from pytest_tooleval.tools.base import ConfigurationError

#: The options ``check`` and ``route`` share: which catalogue to route over.
CATALOGUE_OPTIONS = (
    arg("--k", type=int, help="tools shown per message (default: the configuration's k, else 9)"),
    arg("--mcp", choices=("start", "cached", "off"), default="start",
        help="MCP servers of the configuration: start them to list their tools (default), "
        "read the tool list cached when they were last listed, or leave them out"),
    arg("--no-builtin", action="store_true", default=None,
        help="leave the built-in tools out (as --tooleval-no-builtin)"),
)


def configured(args: argparse.Namespace,
               paths: list[Path]) -> tuple[Settings, ConfiguredCatalogue | None]:
    """The settings and the configured catalogue (None with ``--offered``)."""
    offered = getattr(args, "offered", None)  # route has no --offered
    if not args.no_builtin and not offered:
        jail.probe_in_background()  # its processes run while the configuration is read
    settings = Settings.from_directory(Path.cwd(), k=args.k, no_builtin=args.no_builtin)
    return settings, None if offered else configured_catalogue(settings, paths, mcp=args.mcp)


def source_lines(catalogue: ConfiguredCatalogue | None, offered: list[str] | None) -> list[str]:
    if catalogue is None:
        return [f"--offered: {len(set(offered or ()))} tool names (no descriptions)"]
    return [*catalogue.sources, *(f"not listed: {problem}" for problem in catalogue.problems)]


def table_width() -> int | None:
    """The terminal's width for the table; None (no wrapping) when stdout is not one."""
    return shutil.get_terminal_size().columns if sys.stdout.isatty() else None


@command("tooleval check", __doc__,
         arg("paths", nargs="+", type=Path, help="case files or directories"),
         arg("--json", metavar="FILE", help="also write the report as JSON ('-': stdout)"),
         *CATALOGUE_OPTIONS,
         arg("--similarity", type=float, default=DEFAULT_SIMILARITY,
             help="near-duplicate threshold, 0-100 (default %(default)s)"),
         arg("--language", help="check only files of this language (en, tr, …)"),
         arg("--stemmer", choices=STEMMERS,
             help=f"the router's morphology for triggers and cues (default {DEFAULT_STEMMER})"),
         arg("--offered", metavar="TOOL", action="append",
             help="instead of the configured catalogue: a tool name this machine offers "
             "(repeat); routed without a description, unless it is a built-in"),
         arg("--strict", action="store_true",
             help="also the measuring guards: a write step needs 'args' or a state check; a "
             "read-only built-in is forbidden only with 'forbidden_why'"),
         arg("--oracle", action="store_true",
             help="also replay every case's gold path through the real tools, loop and "
             "scorer (no model; implies --strict)"),
         arg("--write-router-doc", metavar="MD", type=Path,
             help="rewrite the router-misses section of this Markdown file"),
         arg("--no-cache", action="store_true",
             help="check afresh and store nothing (by default a result is reused when every "
             "case file, the catalogue, the options and the code are byte-identical to a "
             "previous check's)"),
         errors=(ConfigError, ConfigurationError, UsageError))
def main(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """0 when clean, 1 on any failure, 2 on usage errors."""
    if not 0 <= args.similarity <= 100:
        raise Refused("--similarity must be within 0-100")
    # and the conftest.py files of the case files' folders, which pytest loads collecting them
    settings, catalogue = configured(args, [*args.paths, *collect_files(args.paths)])
    k = settings.k
    report = _static_check(args, k, catalogue)
    oracle = None
    if args.oracle:
        # A heavy seam: the oracle runs the session, the tools and the scorer.
        from pytest_tooleval.check.oracle import run_oracle

        # The providers of a run: MCP servers started (a gold call needs a live server,
        # so --mcp cached starts them too; --mcp off leaves them out), conftest.py and
        # python_tools imported; only the built-ins when --offered names the tools.
        if args.mcp == "off":
            settings = settings.model_copy(update={"mcp_servers": {}})
        oracle = run_oracle(args.paths, k=k, language=args.language,
                            settings=None if args.offered else settings)
    data = report.to_json()
    if oracle is not None:
        data["oracle"] = oracle.to_json()
    if args.json == "-":
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print(report.render_table(table_width()))
        if oracle is not None:
            print(oracle.render())
        if args.json:
            Path(args.json).write_text(json.dumps(data, ensure_ascii=False, indent=2),
                                       encoding="utf-8")
    if args.write_router_doc:
        write_router_doc(report, args.write_router_doc)
    # Checked as every case file given, but a run would skip them: said, on stderr
    stray = not_run(args.paths, Path.cwd())
    if stray:
        shown = ", ".join(map(str, stray[:3])) + (f", … {len(stray) - 3} more"
                                                  if len(stray) > 3 else "")
        why, fix = not_collected(DEFAULT_PATTERNS)
        print(f"tooleval check: note: {len(stray)} file(s) checked here "
              f"{'is' if len(stray) == 1 else 'are'} {why}: {shown}; fix: {fix}",
              file=sys.stderr)
    return 0 if report.ok and (oracle is None or oracle.ok) else 1


def _static_check(args: argparse.Namespace, k: int,
                  catalogue: ConfiguredCatalogue | None) -> CheckReport:
    """The static check, from the cache when the same input was checked before."""
    started = time.perf_counter()
    sources = source_lines(catalogue, args.offered)
    specs = catalogue.specs if catalogue else None
    offered = sorted(set(args.offered)) if args.offered else None
    key = None
    parts = None
    options = {"k": k, "similarity": args.similarity, "language": args.language,
               "offered": offered, "stemmer": args.stemmer,
               "strict": args.strict and not args.oracle}
    if not args.no_cache:
        key = cache.check_key(args.paths, options, specs, sources)
        hit = cache.load(key)
        if hit is not None:
            hit.seconds = time.perf_counter() - started
            return hit
        # Not this whole input: the files checked before under the same options,
        # catalogue and code are not computed again (cache.FileParts).
        parts = cache.FileParts.open(options, specs, sources)
    # A seam kept lazy on purpose: the case model, the guards and the router (about 0.24 s
    # of imports) are not needed when the result comes from the cache (docs/dev/caches.md).
    from pytest_tooleval.check.static import run_check
    from pytest_tooleval.router.trigger_router import TriggerRouter

    report = run_check(args.paths, k=k, similarity=args.similarity, language=args.language,
                       offered_tools=set(offered) if offered else None,
                       router=TriggerRouter(k, stemmer=args.stemmer or DEFAULT_STEMMER),
                       strict=options["strict"], catalogue=specs,
                       catalogue_sources=sources, parts=parts)
    if parts is not None:
        parts.save()
    if key is not None and cache.still(key, args.paths, options, specs, sources):
        cache.store(key, report)
    report.seconds = time.perf_counter() - started
    return report
