"""``tooleval call TOOL [ARGS] [--file CASEFILE]``: one call of a configured tool on a
fresh world, no model.

For writing gold paths and evidence: prints exactly what the tool returns (what the model,
and the oracle, would see). The tools are a run's (``wiring.configured_providers``): the
built-ins, the ``@tool`` functions of ``python_tools`` and of the ``conftest.py`` files a run
here would load, and the MCP servers (started for the call). ``--file`` applies that case
file's world overrides and finds the ``conftest.py`` files a run of it would load.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from pytest_tooleval.cases.errors import CaseFileError
from pytest_tooleval.cases.load import load_case_file
from pytest_tooleval.check.catalogue import conftest_modules
from pytest_tooleval.cli.common import Refused, arg, command
from pytest_tooleval.config import ConfigError, Settings
from pytest_tooleval.engine.loop import not_run, validate_call
from pytest_tooleval.hints import did_you_mean
from pytest_tooleval.models.base import RawCall
from pytest_tooleval.tools.base import (
    Catalogue,
    ConfigurationError,
    DuplicateToolError,
    ProviderError,
    ToolProvider,
)
from pytest_tooleval.tools.builtin import BuiltinToolProvider
from pytest_tooleval.wiring import configured_providers
from pytest_tooleval.world.factory import WorldFactory


@command("tooleval call", __doc__,
         arg("tool", help="a tool name, e.g. search_documents or an @tool function"),
         arg("args", nargs="?", default="{}", help='JSON arguments, e.g. {"q": 1}'),
         arg("--file", type=Path, help="use this case file's world overrides"),
         errors=(ConfigError, ConfigurationError, DuplicateToolError, ProviderError), raw=True)
def main(options: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """0 when the tool answered, 1 on a tool error, 2 on usage or configuration errors."""
    try:
        arguments = json.loads(options.args)
    except json.JSONDecodeError as exc:
        raise Refused(f"the arguments are not JSON: {exc.msg}") from None
    if not isinstance(arguments, dict):
        raise Refused(f"the arguments must be a JSON object, e.g. '{{\"q\": 1}}', not "
                      f"{options.args}")
    overrides: dict[str, Any] = {}
    if options.file is not None:
        try:
            case_file = load_case_file(options.file)
        except CaseFileError as error:
            print(str(error), file=sys.stderr)
            return 2
        if case_file.world is not None:
            overrides = case_file.world.model_dump(exclude_none=True)
    settings = Settings.from_directory(Path.cwd())
    problems: list[str] = []
    conftests = conftest_modules(settings, [options.file or Path.cwd()], problems)
    with tempfile.TemporaryDirectory(prefix="tooleval-call-") as scratch:
        world = WorldFactory(Path(scratch)).new_case_world(Path(scratch) / "case", overrides)
        builtin = BuiltinToolProvider(lambda context: world,
                                      unsafe_no_jail=settings.unsafe_no_jail)
        builtin.use_world(world)
        providers: list[ToolProvider] = []
        try:
            providers = configured_providers(settings, lambda: Path(scratch), conftests,
                                             builtin=builtin)
            return _call(Catalogue(providers), options.tool, arguments, problems)
        finally:
            for provider in providers:
                provider.close()


def _call(catalogue: Catalogue, tool: str, arguments: dict[str, Any],
          problems: list[str]) -> int:
    if tool not in catalogue:
        hint = "" if problems else did_you_mean(tool, catalogue.names)
        why = "".join(f"; {problem}" for problem in problems)
        known = "" if hint else f"; known: {', '.join(sorted(catalogue.names))}"
        raise Refused(f"no configured tool is named {tool!r}{hint}{why}{known}")
    # A run validates the arguments against the tool's schema first: so does this, and
    # prints what the model would see ("2" for an integer is not coerced).
    attempt = validate_call(RawCall(tool, json.dumps(arguments)), {tool: catalogue.spec(tool)})
    if not attempt.valid:
        print(not_run(attempt))
        return 1
    result = catalogue.call(tool, arguments)
    print(result.text)
    return 1 if result.is_error else 0
