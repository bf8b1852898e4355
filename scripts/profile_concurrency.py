"""Where the run's CPU goes at concurrency 32 (issue 20, item 6): one run of
scripts/bench_concurrency.py's latency load (300 two-call cases, loopback server at 100 ms),
with every thread of the pytest process under cProfile, timed in thread CPU time, so that
waiting on the server counts for nothing and what is left is what competes for the
interpreter lock.

    PYTHONPATH=$PWD python scripts/profile_concurrency.py [--cases 300] [--top 25]

Prints the CPU seconds per thread group (main: pytest's items, scoring, the journal, the
report; lanes; the baselines) and per area (the HTTP client, JSON, pydantic, pytest and
pluggy, the tool loop, scoring, ...), then the functions with the most time of their own.
cProfile slows everything it measures, so read the shares, not the seconds.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from bench_concurrency import SCRIPT  # noqa: E402
from bench_harness import write_project  # noqa: E402

from tests.support.fake_openai import FakeOpenAI  # noqa: E402

#: Run in the child: pytest with a thread-CPU-time profile of each thread, merged by name.
CHILD = r'''
import cProfile, marshal, sys, threading, time
import pytest
out, args = sys.argv[1], sys.argv[2:]
profiles = []
def start(*_):
    profile = cProfile.Profile(time.thread_time)
    profiles.append((threading.current_thread().name, profile))
    profile.enable()
threading.setprofile(start)
main = cProfile.Profile(time.thread_time)
profiles.append(("main", main))
main.enable()
try:
    code = pytest.main(args)
finally:
    main.disable()
    stats = {}
    for name, profile in profiles:
        profile.create_stats()
        stats.setdefault(name, []).append(profile.stats)
    with open(out, "wb") as handle:
        marshal.dump({name: [{k: v[:4] for k, v in s.items()} for s in group]
                      for name, group in stats.items()}, handle)
sys.exit(int(code))
'''

AREAS = (
    ("httpx/httpcore/h11/ssl/socket", ("httpx", "httpcore", "h11", "anyio", "ssl.py",
                                       "socket.py", "selectors.py")),
    ("json", ("json/",)),
    ("pydantic", ("pydantic",)),
    ("pytest/pluggy", ("_pytest", "pluggy")),
    ("xdist/execnet", ("xdist", "execnet")),
    ("threading/queue", ("threading.py", "queue.py")),
    ("tooleval: journal", ("pytest_tooleval/run/journal",)),
    ("tooleval: report", ("pytest_tooleval/report",)),
    ("tooleval: baselines", ("pytest_tooleval/scoring/baselines",)),
    ("tooleval: scoring", ("pytest_tooleval/scoring",)),
    ("tooleval: models", ("pytest_tooleval/models",)),
    ("tooleval: engine", ("pytest_tooleval/engine",)),
    ("tooleval: tools/world", ("pytest_tooleval/tools", "pytest_tooleval/world")),
    ("tooleval: router/text", ("pytest_tooleval/router", "pytest_tooleval/text")),
    ("tooleval: cases/collect", ("pytest_tooleval/cases", "pytest_tooleval/collect")),
    ("tooleval: result", ("pytest_tooleval/result",)),
    ("tooleval: other", ("pytest_tooleval",)),
    ("numpy", ("numpy",)),
    ("yaml/jinja2", ("yaml", "jinja2")),
    ("importing", ("<frozen importlib", "importlib")),
)


#: Whose functions the cumulative list shows.
OURS = ("pytest_tooleval", "_pytest", "json/", "pydantic")


def area_of(filename: str) -> str:
    for name, needles in AREAS:
        if any(needle in filename for needle in needles):
            return name
    return "builtins/other" if filename == "~" else "other"


def group_of(thread: str) -> str:
    if thread.startswith("tooleval-lane"):
        return "lanes"
    if thread.startswith("tooleval-baselines"):
        return "baselines"
    return thread if thread == "main" else "other threads"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--top", type=int, default=25)
    options = parser.parse_args()
    import marshal

    server = FakeOpenAI(SCRIPT, latency=options.latency).start()
    try:
        with tempfile.TemporaryDirectory(prefix="profile-conc-") as tmp:
            folder = Path(tmp)
            write_project(folder, options.cases, server.base_url)
            (folder / "tooleval.toml").write_text(
                f'[models.bench]\nbase_url = "{server.base_url}"\nmodel = "bench"\n'
                f"retries = 1\nconcurrency = {options.concurrency}\n", encoding="utf-8")
            out = folder / "profile.marshal"
            env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONPATH": str(ROOT)}
            done = subprocess.run(
                [sys.executable, "-c", CHILD, str(out), "-p", "pytest_tooleval.plugin",
                 "-p", "no:cacheprovider", "-q", "--model", "bench", "--grammar", "vendor",
                 "--tooleval-progress", "-1", "scenarios"],
                cwd=folder, env=env, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                print(done.stdout[-3000:], done.stderr[-3000:])
                return 1
            raw = marshal.loads(out.read_bytes())
    finally:
        server.stop()
    per_group: dict[str, float] = {}
    per_area: dict[tuple[str, str], float] = {}
    per_function: dict[tuple[str, str, int, str], float] = {}
    cumulative: dict[tuple[str, str, int, str], float] = {}
    for thread, group in raw.items():
        for stats in group:
            for (filename, line, function), (_cc, _nc, tottime, _ct) in stats.items():
                where = group_of(thread)
                per_group[where] = per_group.get(where, 0.0) + tottime
                key = (where, area_of(filename))
                per_area[key] = per_area.get(key, 0.0) + tottime
                fkey = (where, filename, line, function)
                per_function[fkey] = per_function.get(fkey, 0.0) + tottime
                if any(part in filename for part in OURS):
                    cumulative[fkey] = cumulative.get(fkey, 0.0) + _ct
    total = sum(per_group.values())
    print(f"CPU under cProfile (thread time): {total:.2f} s, {options.cases} cases "
          f"({total / options.cases * 1e3:.2f} ms per case)")
    for where, seconds in sorted(per_group.items(), key=lambda kv: -kv[1]):
        print(f"\n{where}: {seconds:.2f} s ({seconds / total:.0%}), "
              f"{seconds / options.cases * 1e3:.2f} ms per case")
        for (group, area), value in sorted(per_area.items(), key=lambda kv: -kv[1]):
            if group == where and value >= 0.01 * seconds:
                print(f"  {area:34s} {value:6.2f} s  {value / seconds:4.0%}")
    print(f"\nthe {options.top} functions with the most time of their own:")
    for (where, filename, line, function), value in sorted(
            per_function.items(), key=lambda kv: -kv[1])[:options.top]:
        short = "/".join(Path(filename).parts[-2:]) if filename != "~" else ""
        print(f"  {value:6.3f} s  {where:9s} {short}:{line} {function}")
    print(f"\nthe {options.top} functions of ours and pytest's with the most time in all "
          "(their callees included; nested ones count again):")
    for (where, filename, line, function), value in sorted(
            cumulative.items(), key=lambda kv: -kv[1])[:options.top]:
        short = "/".join(Path(filename).parts[-2:])
        print(f"  {value:6.3f} s  {where:9s} {short}:{line} {function}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
