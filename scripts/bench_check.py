"""How long ``tooleval check`` takes: the whole command, as a user runs it.

    PYTHONPATH=$PWD python scripts/bench_check.py [--repeat 5] [--no-first-case]
    BENCH_PACKAGE_ROOT=/work/main python scripts/bench_check.py   # another checkout
    python scripts/bench_check.py --in-process [--paths benchmarks scenarios] [--stemmer S]

Prints the load average (before and after: rerun when it is high), then medians over
``--repeat`` child processes (wall time, and CPU time of the child):
- ``tooleval check benchmarks scenarios`` cold (empty local cache: the check computed,
  then stored), computed with ``--no-cache``, warm (served from the content-keyed check
  cache), and after editing one case file of a copy of the corpus (the other files' parts
  kept);
  Python's bytecode is cached for all three (in a temporary ``PYTHONPYCACHEPREFIX``);
- the interpreter's bare start, and importing every module a computed check imports
  (the import share of the warm computed check); importing only the libraries any
  computed check needs and the case format's pydantic models (a floor no change to the
  package's own modules can go below); the time spent routing, in a computed check's
  process (a fresh router's first pass over every step);
- ``pytest --collect-only -q benchmarks scenarios`` (the plugin loaded, no check cache
  involved);
- start-up to the first case of a run (``scripts/bench_harness.py``'s measure: 10 cases
  against a scripted loopback server), unless ``--no-first-case``.

``--in-process`` times ``run_check`` inside this process instead (no start-up): over a
synthetic corpus of ``--cases`` cases (English and Turkish), or over ``--paths``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TEMPLATES = {
    "en": [
        ("what is {a} * {b}?", "calculator"),
        ("how many days until {month} {a}?", "date_diff"),
        ("convert {a} miles to km please", "convert_units"),
        ("what does my lease say about the deposit for flat {a}?", "search_documents"),
        ("list the files in the folder Projects/{word}", "list_directory"),
        ("unzip the archive backup-{a}.zip into Downloads", "extract_archive"),
        ("show me the git log for {word}.py", "git_log"),
        ("what's the dollar rate today, I need {a} of them", "web_search"),
        ("remind me to call {name} at {h} tomorrow", "reminder_add"),
        ("what's {name}'s phone number? ({a})", "contacts_lookup"),
        ("add a meeting with {name} on {month} {a} to my calendar", "calendar_add"),
        ("send a message to {name} saying I'm {a} minutes late", "send_message"),
    ],
    "tr": [
        ("{a} çarpı {b} kaç eder?", "calculator"),
        ("{month} {a} tarihine kaç gün kaldı?", "date_diff"),
        ("{a} mil kaç kilometre eder", "convert_units"),
        ("{a} numaralı daire için kira sözleşmesinde depozito ne kadar yazıyor?", "read_document"),
        ("Projeler/{word} klasöründe hangi dosyalar var", "list_directory"),
        ("yedek-{a}.zip dosyasını zipten çıkar", "extract_archive"),
        ("{word}.py için son commitleri göster, git log", "git_log"),
        ("dolar kuru bugün ne kadar, {a} dolar lazım", "web_search"),
        ("yarın saat {h}'de {name}'i aramayı bana hatırlat", "reminder_add"),
        ("{name}'in telefon numarası ne? ({a})", "contacts_lookup"),
        ("{month} {a} için {name} ile toplantıyı takvime ekle", "calendar_add"),
        ("{name}'e {a} dakika geç kalacağım diye mesaj at", "send_message"),
    ],
}
NAMES = ["Ayşe", "Mehmet", "Zeynep", "Alice", "Bob", "Carol", "Deniz", "Emre", "Selin", "Tom"]
MONTHS = ["March", "April", "May", "June", "Mart", "Nisan", "Mayıs", "Haziran"]
FILLER = [
    *("please", "quickly", "now", "again", "also", "really", "maybe", "honestly", "kindly"),
    *("urgently", "later", "soon", "today", "lütfen", "hemen", "şimdi", "yine", "acaba"),
    *("gerçekten", "belki", "rica", "ederim", "acil", "sonra", "bugün", "hızlıca", "thanks"),
    *("sağol", "okay", "tamam", "well", "so", "hey", "dear", "canım", "abi", "hocam", "bro"),
    *("mate", "sir", "madam", "efendim"),
]
WORDS = ["kestrel", "parser", "router", "engine", "atlas", "notes", "budget", "report"]


def build_corpus(root: Path, total: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    per_file = 50
    for index in range(0, total, per_file):
        language = "tr" if (index // per_file) % 2 else "en"
        cases = []
        for number in range(index, min(index + per_file, total)):
            template, tool = rng.choice(TEMPLATES[language])
            message = template.format(
                a=rng.randint(11, 99999),
                b=rng.randint(11, 9999),
                h=rng.randint(7, 22),
                month=rng.choice(MONTHS),
                name=rng.choice(NAMES),
                word=f"{rng.choice(WORDS)}{rng.randint(1, 999)}",
            )
            message += " " + " ".join(rng.sample(FILLER, 4))
            cases.append(
                {
                    "name": f"case-{number}",
                    "category": "tool",
                    "register": rng.choice(["formal", "whatsapp", "caps"]),
                    "steps": [{"message": message, "expect": tool}],
                }
            )
        requires = sorted({case["steps"][0]["expect"] for case in cases})
        data = {"name": f"bench-{index}", "language": language, "requires": requires}
        data["cases"] = cases
        path = root / language / f"bench-{index:04d}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


ROOT = Path(__file__).resolve().parents[1]
#: The checkout whose package the commands import (default this one): compare versions.
PACKAGE = Path(os.environ.get("BENCH_PACKAGE_ROOT", ROOT))
CORPUS = [p for p in ("benchmarks", "scenarios") if (ROOT / p).is_dir()]


def _env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PACKAGE), str(ROOT)]), **extra}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _timed(args: list[str], env: dict[str, str], cwd: Path = ROOT) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(args, cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, check=False, timeout=300)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stdout.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _median(runs: list[tuple[float, float]]) -> str:
    wall = statistics.median(run[0] for run in runs)
    cpu = statistics.median(run[1] for run in runs)
    return f"{wall * 1000:6.0f} ms wall, {cpu * 1000:5.0f} ms CPU"


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def _computed_check_child(env: dict[str, str], has_cache: bool, before: str,
                          result: str) -> tuple[Any, str]:
    """Run a computed ``tooleval check`` of the corpus in a child process: ``before`` runs
    first (imports, patches), ``main``'s return code is ``code``, and the JSON of the
    expression ``result`` is read back, with the child's stderr."""
    flags = ["--no-cache"] if has_cache else []  # an older checkout has no check cache
    script = (
        "import contextlib, io, json, sys\n"
        f"{before}"
        "from pytest_tooleval.cli import main\n"
        f"sys.argv = ['tooleval', 'check', *{flags!r}, *{CORPUS!r}]\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n        code = main(sys.argv[1:])\n"
        "    except SystemExit as exit_:\n        code = exit_.code\n"
        f"print(json.dumps({result}))\n"
    )
    done = subprocess.run([sys.executable, "-P", "-c", script], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=True, timeout=300)
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def _check_modules(env: dict[str, str], has_cache: bool) -> list[str]:
    """The modules a computed check has imported when it ends."""
    names, _ = _computed_check_child(env, has_cache, "", "sorted(sys.modules)")
    return [n for n in names if n != "__main__" and not n.startswith("tooleval_conftest_")]


def _one_file_edited(check: list[str], env: dict[str, str], tmp: Path,
                     repeat: int) -> list[tuple[float, float]]:
    """The check of a copy of the corpus after each edit of one file (a blank line more
    at the end of the last file: another key each time), the local caches warm."""
    import shutil

    copy = tmp / "edited"
    for name in [*CORPUS, "pyproject.toml"]:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name)
        elif source.is_file():
            copy.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    edited = sorted((copy / CORPUS[-1]).rglob("*.yaml")) or sorted(copy.rglob("*.json"))
    target = edited[-1]
    _timed(check, env, copy)  # the unedited copy checked once
    runs = []
    for _ in range(repeat):
        target.write_text(target.read_text(encoding="utf-8") + "\n", encoding="utf-8")
        runs.append(_timed(check, env, copy))
    return runs


#: What any computed check must import, whatever the package does: the case format
#: (pydantic models), YAML, the Unicode regexes of normalisation, the fuzzy matcher.
FLOOR_IMPORTS = "import yaml, regex, rapidfuzz; import pytest_tooleval.cases.model"


def _routing_alone(env: dict[str, str], has_cache: bool) -> tuple[float, int]:
    """Seconds a computed check spends in ``TriggerRouter.route`` (its first pass over the
    corpus, with the caches a new process has), and the steps routed."""
    patch = (
        "import time\n"
        "from pytest_tooleval.router.trigger_router import TriggerRouter\n"
        "spent = [0.0, 0]\nroute = TriggerRouter.route\n"
        "def timed(self, *args, **kwargs):\n"
        "    started = time.perf_counter()\n"
        "    try:\n        return route(self, *args, **kwargs)\n"
        "    finally:\n"
        "        spent[0] += time.perf_counter() - started\n        spent[1] += 1\n"
        "TriggerRouter.route = timed\n"
    )
    (seconds, steps, code), stderr = _computed_check_child(env, has_cache, patch,
                                                           "[*spent, code]")
    if code not in (0, 1) or not steps:
        raise SystemExit(f"routing alone: the check ended {code} after routing {steps} steps "
                         f"(a computed check must route every step):\n{stderr[-2000:]}")
    return float(seconds), int(steps)


def whole_command(repeat: int, first_case: bool) -> None:
    where = subprocess.run(  # -P: the working folder's package must not shadow PACKAGE's
        [sys.executable, "-P", "-c", "import pytest_tooleval; print(pytest_tooleval.__file__)"],
        cwd=ROOT, env=_env(), capture_output=True, text=True, check=True, timeout=60)
    print(f"package: {where.stdout.strip()}; load average before: {_load()}")
    with tempfile.TemporaryDirectory(prefix="bench-check-") as tmp:
        warm = _env(PYTHONPYCACHEPREFIX=f"{tmp}/pyc", TOOLEVAL_CACHE_DIR=f"{tmp}/cache")
        check = [sys.executable, "-P", "-m", "pytest_tooleval.cli", "check", *CORPUS]
        helped = subprocess.run([*check[:5], "--help"], cwd=ROOT, env=warm, timeout=120,
                                capture_output=True, text=True, check=False).stdout
        has_cache = "--no-cache" in helped  # an older checkout has no check cache
        no_cache = [*check, "--no-cache"] if has_cache else check
        _timed(no_cache, warm)  # fill the bytecode cache
        cold_runs = []
        for index in range(repeat):  # an empty local cache each time: computed and stored
            cold = {**warm, "TOOLEVAL_CACHE_DIR": f"{tmp}/cold-cache-{index}"}
            cold_runs.append(_timed(check, cold))
        computed = [_timed(no_cache, warm) for _ in range(repeat)]
        _timed(check, warm)  # fill the check cache
        cached = [_timed(check, warm) for _ in range(repeat)] if has_cache else []
        edited = _one_file_edited(check, warm, Path(tmp), repeat)
        bare = [_timed([sys.executable, "-P", "-c", "pass"], warm) for _ in range(repeat)]
        modules = _check_modules(warm, has_cache)
        importer = ("import importlib\n"
                    f"for name in {modules!r}:\n"
                    "    try:\n        importlib.import_module(name)\n"
                    "    except Exception:\n        pass\n")
        imports = [_timed([sys.executable, "-P", "-c", importer], warm) for _ in range(repeat)]
        floor = [_timed([sys.executable, "-P", "-c", FLOOR_IMPORTS], warm)
                 for _ in range(repeat)]
        routing = [_routing_alone(warm, has_cache) for _ in range(repeat)]
        collect = [_timed([sys.executable, "-P", "-m", "pytest", "-p", "no:cacheprovider",
                           "--collect-only", "-q", *CORPUS], warm) for _ in range(repeat)]
    print(f"tooleval check {' '.join(CORPUS)} (median of {repeat}):")
    print(f"  cold (empty local cache, stored):   {_median(cold_runs)}")
    print(f"  warm, computed (--no-cache):        {_median(computed)}")
    if cached:
        print(f"  warm, from the check cache:         {_median(cached)}")
    else:
        print("  (this checkout has no check cache: computed every time)")
    print(f"  warm, one case file edited:         {_median(edited)}")
    print(f"  bare interpreter start:             {_median(bare)}")
    print(f"  importing the {len(modules)} modules a computed check imports: "
          f"{_median(imports)}")
    share = (statistics.median(r[0] for r in imports) - statistics.median(r[0] for r in bare)) \
        / statistics.median(r[0] for r in computed)
    print(f"  import share of the warm computed check (imports less bare start): "
          f"{100 * share:.0f} %")
    print(f"  the floor: a process that imports only the libraries any computed check needs "
          f"and builds the case models: {_median(floor)}")
    steps = routing[0][1]
    print(f"  routing alone, in process, a fresh router's first pass over the {steps} steps: "
          f"{statistics.median(r[0] for r in routing) * 1000:.0f} ms")
    print(f"pytest --collect-only -q {' '.join(CORPUS)}: {_median(collect)}")
    if first_case:
        sys.path.insert(0, str(ROOT / "scripts"))
        from bench_harness import FakeOpenAI, Rule, answer, call, run_once

        server = FakeOpenAI([Rule("what is 6 * 7", [call("calculator", {"expression": "6*7"}),
                                                    answer("6 * 7 is 42.")])]).start()
        try:
            firsts = [run_once(10, server.base_url, 0)["first_case_s"] for _ in range(3)]
        finally:
            server.stop()
        print(f"start-up to the first case (10-case run, median of 3): "
              f"{statistics.median(firsts):.2f} s")
    print(f"load average after: {_load()}")


def in_process(args: argparse.Namespace) -> None:
    from pytest_tooleval.check.static import run_check
    from pytest_tooleval.router.trigger_router import TriggerRouter

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        paths = args.paths or [root]
        if not args.paths:
            build_corpus(root, args.cases)
        timings = []
        cpu = []
        report = None
        for _ in range(args.repeat):
            started, cpu_started = time.perf_counter(), time.process_time()
            options = {"stemmer": args.stemmer} if args.stemmer != "light" else {}
            report = run_check(paths, router=TriggerRouter(**options))
            timings.append(time.perf_counter() - started)
            cpu.append(time.process_time() - cpu_started)
        assert report is not None
        print(
            f"{report.cases} cases, {report.files} files, {report.steps_routed} steps routed, "
            f"{len(report.failures)} failures, recall {report.recall.render().strip()}"
        )
        print(
            f"run_check: cold {timings[0] * 1000:.0f} ms, "
            f"median {statistics.median(timings) * 1000:.0f} ms, "
            f"fastest {min(timings) * 1000:.0f} ms over {args.repeat} runs; "
            f"CPU time cold {cpu[0] * 1000:.0f} ms, "
            f"median {statistics.median(cpu[1:] or cpu) * 1000:.0f} ms warm"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-first-case", action="store_true",
                        help="skip the start-up to the first case of a run")
    parser.add_argument("--in-process", action="store_true",
                        help="time run_check in this process (synthetic corpus or --paths)")
    parser.add_argument("--cases", type=int, default=650, help="--in-process: synthetic size")
    parser.add_argument("--paths", nargs="+", type=Path,
                        help="--in-process: time these folders instead (implies it)")
    parser.add_argument("--stemmer", default="light", choices=("light", "snowball"))
    args = parser.parse_args()
    if args.in_process or args.paths:
        in_process(args)
    else:
        whole_command(args.repeat, not args.no_first_case)


if __name__ == "__main__":
    main()
