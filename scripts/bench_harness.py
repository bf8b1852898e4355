"""The harness's own cost per case, against a scripted loopback server that answers at once.

    PYTHONPATH=$PWD python scripts/bench_harness.py [--cases 600] [--small 50] [--workers 0]
        [--rounds 5] [--before REF]    # REF (a commit of this repository) side by side
    BENCH_PACKAGE_ROOT=/other/checkout python scripts/bench_harness.py   # another version

Each case is one step that takes 2 model calls (a calculator call, then the answer) and 1
built-in tool call. Prints, for a pytest run of the plugin in a child process:
- wall time for ``--small`` and ``--cases`` cases, and the marginal cost per case
  (the difference over the difference in cases: start-up cancels out);
- start-up to the first and to the second case in the journal (process start to each):
  a version that prepares more right after its first case shows it in the second;
- the controller's peak RSS (its high-water mark, ``VmHWM``; serial runs only);
- with ``--before REF``, the same for REF, round by round in turn, medians side by side
  (the rounds' range in brackets);
- ``tooleval check`` on ``benchmarks scenarios`` (wall time of the command, its cache warm).
inspect_ai is not measured here (not installed in this environment).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
#: The checkout whose package the runs import (default this one): compare two versions.
PACKAGE = Path(os.environ.get("BENCH_PACKAGE_ROOT", ROOT))

from tests.support.fake_openai import FakeOpenAI, Rule, answer, call  # noqa: E402


def _word(number: int) -> str:
    """A case's number in letters, so that no message contains the evidence "42"."""
    return "".join("abcdefghij"[int(d)] for d in str(number))


def write_project(folder: Path, cases: int, base_url: str) -> None:
    (folder / "scenarios").mkdir(parents=True, exist_ok=True)
    per_file = 50
    for start in range(0, cases, per_file):
        data = {
            "name": f"bench{start}", "language": "en", "requires": ["calculator"],
            "cases": [{"name": f"c{i:04d}", "category": "tool", "steps": [
                {"message": f"what is 6 * 7? (question {_word(i)})", "expect": "calculator",
                 "evidence": ["42"]}]} for i in range(start, min(cases, start + per_file))],
        }
        (folder / "scenarios" / f"bench{start:04d}.yaml").write_text(
            yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    (folder / "tooleval.toml").write_text(
        f'[models.bench]\nbase_url = "{base_url}"\nmodel = "bench"\nretries = 1\n',
        encoding="utf-8")


def passed_report(folder: Path, cases: int, process: subprocess.Popen[bytes]) -> dict[str, Any]:
    """The finished run's report.json; exits with the run's output unless every one of
    ``cases`` passed (a benchmark of a broken run measures nothing)."""
    output = process.stdout.read().decode() if process.stdout else ""
    path = folder / "tooleval-report" / "report.json"
    if not path.exists():
        raise SystemExit(f"the bench run wrote no report:\n{output[-3000:]}")
    report: dict[str, Any] = json.loads(path.read_text())
    outcomes = report["summary"]["outcomes"]
    if outcomes["PASS"] != cases:
        raise SystemExit(f"the bench run did not pass every case: {outcomes}\n{output[-2000:]}")
    return report


def run_once(cases: int, base_url: str, workers: int, package: Path) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="bench-harness-") as tmp:
        folder = Path(tmp)
        write_project(folder, cases, base_url)
        args = [sys.executable, "-m", "pytest", "-p", "pytest_tooleval.plugin",
                "-p", "no:cacheprovider", "-q", "--model", "bench", "--grammar", "vendor",
                "--tooleval-progress", "-1", "scenarios"]
        if workers:
            args += ["-p", "xdist", "-n", str(workers)]
        env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
               "PYTHONPATH": os.pathsep.join([str(package), str(ROOT)])}
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # compiled, as an install is
        journal = folder / "tooleval-report" / "journal.jsonl"
        started = time.perf_counter()
        process = subprocess.Popen(args, cwd=folder, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT)
        seen: list[float] = []  # when the first and the second case reached the journal
        # The child's own peak (its memory's high-water mark, read while it runs): ru_maxrss
        # keeps what the forked parent held before the exec, up to 235 MB here.
        peak_kb = 0
        while True:  # reaped here, so that the RSS is this child's own
            with contextlib.suppress(OSError):
                status_text = Path(f"/proc/{process.pid}/status").read_text()
                peak_kb = max([peak_kb] + [int(line.split()[1]) for line in
                                           status_text.splitlines() if line.startswith("VmHWM")])
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if len(seen) < 2 and journal.exists():
                now = time.perf_counter() - started
                seen += [now] * (min(2, journal.read_text().count('"type":"case"')) - len(seen))
            time.sleep(0.005)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        passed_report(folder, cases, process)
        seen += [wall] * (2 - len(seen))
        return {"wall_s": wall, "first_case_s": seen[0], "second_case_s": seen[1],
                "rss_mb": (peak_kb or usage.ru_maxrss) / 1024}


def check_time(package: Path) -> float:
    paths = [p for p in ("benchmarks", "scenarios") if (ROOT / p).is_dir()]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(package), str(ROOT)])}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pytest_tooleval.cli", "check", *paths], cwd=ROOT,
                   env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def figures(package: Path, options: argparse.Namespace, base_url: str) -> dict[str, float]:
    """One round of one version: the small and the large run, and what they give."""
    small = run_once(options.small, base_url, options.workers, package)
    large = run_once(options.cases, base_url, options.workers, package)
    return {
        "marginal cost per case (ms)":
            (large["wall_s"] - small["wall_s"]) / (options.cases - options.small) * 1000,
        f"wall, {options.small} cases (s)": small["wall_s"],
        f"wall, {options.cases} cases (s)": large["wall_s"],
        "start-up to the first case (s)": small["first_case_s"],
        "start-up to the second case (s)": small["second_case_s"],
        f"peak RSS, {options.cases} cases (MB)": large["rss_mb"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=600)
    parser.add_argument("--small", type=int, default=50)
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=1,
                        help="interleaved rounds per version; medians are printed")
    parser.add_argument("--before", metavar="REF",
                        help="also measure this git ref (a temporary worktree), side by side")
    options = parser.parse_args()
    versions = {"this": PACKAGE}
    with contextlib.ExitStack() as stack:
        if options.before:
            tree = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-before-")))
            subprocess.run(["git", "worktree", "add", "--detach", str(tree / "src"),
                            options.before], cwd=ROOT, check=True, capture_output=True)
            stack.callback(subprocess.run, ["git", "worktree", "remove", "--force",
                                            str(tree / "src")], cwd=ROOT, capture_output=True)
            versions = {options.before: tree / "src", **versions}
        server = FakeOpenAI([Rule("what is 6 * 7", [call("calculator", {"expression": "6*7"}),
                                                    answer("6 * 7 is 42.")])]).start()
        stack.callback(server.stop)
        for package in versions.values():  # warm the file caches
            run_once(options.small, server.base_url, options.workers, package)
        rounds: dict[str, list[dict[str, float]]] = {name: [] for name in versions}
        for _ in range(options.rounds):
            for name, package in versions.items():
                rounds[name].append(figures(package, options, server.base_url))
        checks = {name: (check_time(package), check_time(package))[1]  # the second: warm
                  for name, package in versions.items()}
    print(f"workers: {options.workers or 'serial'}; medians of {options.rounds} interleaved "
          f"round(s); load average {os.getloadavg()[0]:.1f}")
    names = list(versions)
    print("| figure | " + " | ".join(names) + (" | change |" if len(names) == 2 else " |"))
    print("|---" * (len(names) + 1 + (len(names) == 2)) + "|")
    for key in rounds[names[0]][0]:
        if options.workers and key.startswith("peak RSS"):
            continue
        values = [statistics.median(r[key] for r in rounds[name]) for name in names]
        spreads = [(min(r[key] for r in rounds[name]), max(r[key] for r in rounds[name]))
                   for name in names]
        change = f" | {100 * (values[1] / values[0] - 1):+.0f} %" if len(values) == 2 else ""
        print(f"| {key} | " + " | ".join(f"{v:.2f} ({low:.2f}–{high:.2f})" for v, (low, high)
                                          in zip(values, spreads, strict=True)) + change + " |")
    print("| tooleval check benchmarks scenarios (s) | "
          + " | ".join(f"{checks[name]:.2f}" for name in names) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
