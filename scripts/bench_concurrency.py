"""Concurrent tool loops against a slow server, and the harness's own cost, side by side
with inspect_ai (issue 20, items 6 and 8).

    PYTHONPATH=$PWD python scripts/bench_concurrency.py [--rounds 3] [--inspect-python PATH]

Every case is one user message taking 2 model calls (a calculator call, then the answer)
and 1 tool call (our built-in calculator; an equivalent inspect_ai tool), against the
loopback server of tests/support/fake_openai.py in this process.

1. Latency: ``--cases`` (300) cases against a server that answers in ``--latency`` (0.1 s),
   ours with a profile's ``concurrency = --concurrency`` (32), inspect_ai with
   ``--max-connections`` 32. The ideal is cases × 2 × latency / concurrency (1.9 s).
   Start-up (ours): process start to the first case's result in the journal, less that
   case's own 2 model calls; the ratio is (wall − start-up) / ideal, goal ≤ 1.5.
   inspect_ai's start-up is the wall time of a 1-sample run less its 2 model calls.
   "after the last" is from the last case's result to the process's exit: the end of the
   run (report, baselines, exporters, pytest's own end). ``--serial`` adds a run of the
   same cases at concurrency 1; ``--before OTHER_CHECKOUT`` runs another version's
   package too, interleaved, labelled "before".
2. Harness cost: zero latency, ``--small`` (50) and ``--cases`` cases; the marginal cost
   per case is the difference in wall time over the difference in cases (start-up cancels
   out). Ours at concurrency 1 (one loop, as bench_harness.py) and at ``--concurrency``;
   inspect_ai at its ``--max-connections``. Goal: ours below a fifth of inspect_ai's.

The server answers one request per connection (HTTP/1.0), as the test suite's loopback
server does, unless ``--keep-alive``: HTTP/1.1 persistent connections, as llama-server,
vLLM and Ollama keep them, for both harnesses alike.

Runs interleave (ours, theirs, ours, theirs…); each prints its figures and the machine's
load average; the summary gives medians. inspect_ai runs from its own environment, never
this project's (it is not a dependency here): ``--inspect-python`` names that
environment's Python (or set ``TOOLEVAL_INSPECT_PYTHON``); without either, or where that
Python cannot import inspect_ai, the comparison is skipped, saying so, and only ours runs:

    python3 -m venv ../venv-inspect                            # anywhere outside the checkout
    ../venv-inspect/bin/pip install inspect-ai openai          # openai: its openai-api provider
    PYTHONPATH=$PWD python scripts/bench_concurrency.py --inspect-python ../venv-inspect/bin/python
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_harness import passed_report, write_project  # noqa: E402

from tests.support.fake_openai import FakeOpenAI, Rule, answer, call  # noqa: E402

SCRIPT = [Rule("what is 6 * 7", [call("calculator", {"expression": "6*7"}),
                                 answer("6 * 7 is 42.")])]
TASK = ROOT / "scripts" / "inspect_bench_task.py"


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f}"


def ours(cases: int, base_url: str, concurrency: int, latency: float,
         package: Path = ROOT) -> dict[str, Any]:
    """One pytest run of the plugin (``package``: the checkout it imports) in a child
    process; wall, start-up, outcomes checked."""
    with tempfile.TemporaryDirectory(prefix="bench-conc-") as tmp:
        folder = Path(tmp)
        write_project(folder, cases, base_url)
        (folder / "tooleval.toml").write_text(
            f'[models.bench]\nbase_url = "{base_url}"\nmodel = "bench"\nretries = 1\n'
            f"concurrency = {concurrency}\n", encoding="utf-8")
        args = [sys.executable, "-m", "pytest", "-p", "pytest_tooleval.plugin",
                "-p", "no:cacheprovider", "-q", "--model", "bench", "--grammar", "vendor",
                "--tooleval-progress", "-1", "scenarios"]
        env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
               "PYTHONPATH": os.pathsep.join([str(package)])}
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # compiled, as an install is
        journal = folder / "tooleval-report" / "journal.jsonl"
        started = time.perf_counter()
        process = subprocess.Popen(args, cwd=folder, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT)
        # When the journal grows: the header, each case's result, the end record. Only its
        # size is polled (reading it would take CPU from the run being measured).
        changes: list[float] = []
        size = -1
        while True:
            # wait4, not poll: the child's own CPU time (every thread) comes with its exit.
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                process.returncode = os.waitstatus_to_exitcode(status)
                break
            now = os.stat(journal).st_size if journal.exists() else -1
            if now != size:
                size = now
                if now > 0:  # an empty new file is not the header yet
                    changes.append(time.perf_counter() - started)
            time.sleep(0.005)
        wall = time.perf_counter() - started
        report = passed_report(folder, cases, process)
        used = (report["run"].get("concurrency") or {}).get("used")
        if used != concurrency:
            raise SystemExit(f"our run used concurrency {used}, not {concurrency}")
        # changes[0]: the header; [1]: the first case; [-2]: the last case; [-1]: the end.
        first = changes[1] if len(changes) > 3 else wall
        last = changes[-2] if len(changes) > 3 else wall
        return {"wall_s": wall, "startup_s": max(0.0, first - 2 * latency),
                "cases_s": last - first + 2 * latency, "after_s": wall - last,
                "cpu_s": usage.ru_utime + usage.ru_stime}


def inspect_python(given: str | None) -> tuple[str | None, str]:
    """The Python of inspect_ai's environment, or None and why the comparison is skipped."""
    where = given or os.environ.get("TOOLEVAL_INSPECT_PYTHON")
    if not where:
        return None, ("inspect_ai: no --inspect-python (or TOOLEVAL_INSPECT_PYTHON) given; "
                      "skipping the comparison, ours only")
    if not Path(where).exists():
        return None, f"inspect_ai: {where} does not exist; skipping the comparison, ours only"
    probe = subprocess.run([where, "-c", "import inspect_ai; print(inspect_ai.__version__)"],
                           capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        return None, (f"inspect_ai: {where} cannot import inspect_ai "
                      f"({(probe.stderr.strip().splitlines() or ['?'])[-1]}); skipping the "
                      "comparison, ours only")
    return where, f"inspect_ai {probe.stdout.strip()} from {where}"


def theirs(inspect: str, cases: int, base_url: str, connections: int) -> dict[str, float]:
    """One inspect_ai eval of the same cases in a child process; every sample checked."""
    with tempfile.TemporaryDirectory(prefix="bench-inspect-") as tmp:
        env = {**os.environ, "BENCH_CASES": str(cases), "BENCH_API_KEY": "bench",
               "BENCH_BASE_URL": base_url, "INSPECT_DISPLAY": "none",
               "INSPECT_LOG_DIR": tmp}
        env.pop("PYTHONPATH", None)
        # inspect_ai takes the task as a path relative to where it runs.
        args = [inspect, "-m", "inspect_ai", "eval", TASK.name, "--model", "openai-api/bench/bench",
                "--max-connections", str(connections), "--display", "none",
                "--log-dir", tmp, "--log-format", "json", "--no-fail-on-error"]
        started = time.perf_counter()
        done = subprocess.run(args, env=env, cwd=TASK.parent, capture_output=True, text=True,
                              check=False)
        wall = time.perf_counter() - started
        logs = sorted(Path(tmp).glob("*.json"))
        if done.returncode != 0 or not logs:
            raise SystemExit(f"inspect_ai failed ({done.returncode}):\n"
                             f"{(done.stdout + done.stderr)[-3000:]}")
        log = json.loads(logs[-1].read_text())
        samples = log.get("samples") or []
        right = sum(1 for s in samples for score in (s.get("scores") or {}).values()
                    if score.get("value") == "C")
        if log.get("status") != "success" or right != cases:
            raise SystemExit(f"inspect_ai did not answer every sample: status "
                             f"{log.get('status')}, {right} of {cases} correct")
        return {"wall_s": wall}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--small", type=int, default=50)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--max-connections", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--inspect-python", default=None,
                        help="the Python of an environment with inspect_ai installed "
                             "(default: $TOOLEVAL_INSPECT_PYTHON; neither: ours only)")
    parser.add_argument("--before", type=Path, default=None,
                        help="another checkout (an older version) whose package also runs "
                             "the latency rounds, interleaved with this one's, as 'before'")
    parser.add_argument("--keep-alive", action="store_true",
                        help="the server keeps connections open (HTTP/1.1), as real servers do")
    parser.add_argument("--serial", action="store_true",
                        help="each latency round also runs the cases at concurrency 1")
    parser.add_argument("--skip", choices=["latency", "cost"], action="append", default=[])
    options = parser.parse_args()
    versions = [("ours", ROOT)]
    if options.before is not None:
        versions.insert(0, ("before", options.before.resolve()))
    inspect, why = inspect_python(options.inspect_python)
    print(why, flush=True)
    slow = FakeOpenAI(SCRIPT, latency=options.latency, keep_alive=options.keep_alive).start()
    fast = FakeOpenAI(SCRIPT, keep_alive=options.keep_alive).start()
    kept = "HTTP/1.1 keep-alive" if options.keep_alive else "HTTP/1.0, a connection per request"
    print(f"server: {kept}")
    n, c = options.cases, options.concurrency
    ideal = n * 2 * options.latency / c
    figures: dict[str, list[float]] = {}

    def keep(name: str, value: float) -> None:
        figures.setdefault(name, []).append(value)

    try:
        for round_ in range(1, options.rounds + 1):
            if "latency" not in options.skip:
                for label, package in versions:
                    run = ours(n, slow.base_url, c, options.latency, package)
                    ratio = (run["wall_s"] - run["startup_s"]) / ideal
                    keep(f"{label}_cpu", run["cpu_s"])
                    keep(f"{label}_wall", run["wall_s"])
                    keep(f"{label}_startup", run["startup_s"])
                    keep(f"{label}_ratio", ratio)
                    keep(f"{label}_cases", run["cases_s"])
                    keep(f"{label}_after", run["after_s"])
                    print(f"[{round_}] latency {options.latency:g} s, {n} cases, {label} at "
                          f"concurrency {c}: wall {run['wall_s']:.2f} s, start-up "
                          f"{run['startup_s']:.2f} s, (wall - start-up) / ideal {ideal:.2f} s "
                          f"= {ratio:.2f}; first to last case {run['cases_s']:.2f} s "
                          f"({run['cases_s'] / ideal:.2f}x ideal), report and exit after the "
                          f"last {run['after_s']:.2f} s; CPU {run['cpu_s']:.2f} s  ({load()})",
                          flush=True)
                    if options.serial:
                        run = ours(n, slow.base_url, 1, options.latency, package)
                        keep(f"{label}_serial", run["wall_s"])
                        print(f"[{round_}] latency {options.latency:g} s, {n} cases, {label} "
                              f"at concurrency 1: wall {run['wall_s']:.2f} s, report and exit "
                              f"after the last {run['after_s']:.2f} s  ({load()})", flush=True)
                if inspect is not None:
                    one = theirs(inspect, 1, slow.base_url, options.max_connections)
                    run = theirs(inspect, n, slow.base_url, options.max_connections)
                    startup = max(0.0, one["wall_s"] - 2 * options.latency)
                    keep("theirs_wall", run["wall_s"])
                    keep("theirs_startup", startup)
                    print(f"[{round_}] latency {options.latency:g} s, {n} cases, inspect_ai "
                          f"at max_connections {options.max_connections}: wall "
                          f"{run['wall_s']:.2f} s, start-up (1 sample) {startup:.2f} s, "
                          f"(wall - start-up) / ideal = {(run['wall_s'] - startup) / ideal:.2f}"
                          f"  ({load()})", flush=True)
            if "cost" not in options.skip:
                for version, package in versions:
                    for label, concurrency in ((f"{version}_c1", 1), (f"{version}_c{c}", c)):
                        small = ours(options.small, fast.base_url, concurrency, 0.0, package)
                        large = ours(n, fast.base_url, concurrency, 0.0, package)
                        marginal = ((large["wall_s"] - small["wall_s"])
                                    / (n - options.small) * 1e3)
                        # The run's own process (every thread).
                        cpu = (large["cpu_s"] - small["cpu_s"]) / (n - options.small) * 1e3
                        keep(label, marginal)
                        keep(f"{label}_cpu", cpu)
                        print(f"[{round_}] zero latency, {version} at concurrency "
                              f"{concurrency}: {options.small} cases {small['wall_s']:.2f} s, "
                              f"{n} cases {large['wall_s']:.2f} s, marginal {marginal:.1f} "
                              f"ms/case, CPU {cpu:.2f} ms/case  ({load()})", flush=True)
                if inspect is not None:
                    small = theirs(inspect, options.small, fast.base_url,
                                   options.max_connections)
                    large = theirs(inspect, n, fast.base_url, options.max_connections)
                    marginal = (large["wall_s"] - small["wall_s"]) / (n - options.small) * 1e3
                    keep("theirs_cost", marginal)
                    print(f"[{round_}] zero latency, inspect_ai at max_connections "
                          f"{options.max_connections}: {options.small} samples "
                          f"{small['wall_s']:.2f} s, {n} samples {large['wall_s']:.2f} s, "
                          f"marginal {marginal:.1f} ms/case  ({load()})", flush=True)
    finally:
        slow.stop()
        fast.stop()

    def median(name: str) -> float | None:
        values = figures.get(name)
        return statistics.median(values) if values else None

    print(f"\nmedians over {options.rounds} round(s):")
    for label, _ in versions:
        if median(f"{label}_wall") is not None:
            print(f"  latency: {label} wall {median(f'{label}_wall'):.2f} s, start-up "
                  f"{median(f'{label}_startup'):.2f} s, ratio {median(f'{label}_ratio'):.2f} "
                  f"(goal <= 1.5; ideal {ideal:.2f} s); first to last case "
                  f"{median(f'{label}_cases'):.2f} s "
                  f"({median(f'{label}_cases') / ideal:.2f}x ideal); after the last "
                  f"{median(f'{label}_after'):.2f} s; CPU {median(f'{label}_cpu'):.2f} s")
        if median(f"{label}_serial") is not None:
            print(f"  latency: {label} at concurrency 1: wall "
                  f"{median(f'{label}_serial'):.2f} s")
    if median("theirs_wall") is not None:
        print(f"  latency: inspect_ai wall {median('theirs_wall'):.2f} s, start-up "
              f"{median('theirs_startup'):.2f} s")
    for label in [f"{version}_{k}" for version, _ in versions for k in ("c1", f"c{c}")]:
        if median(label) is not None:
            line = (f"  harness cost: {label} {median(label):.1f} ms/case (CPU "
                    f"{median(f'{label}_cpu'):.2f} ms/case)")
            if median("theirs_cost"):
                line += (f", inspect_ai {median('theirs_cost'):.1f} ms/case, ours/theirs "
                         f"{median(label) / median('theirs_cost'):.2f} (goal < 0.20)")
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
