"""The jail's overhead: median wall time of N ``run_python`` and ``git_status`` calls,
jailed (bubblewrap) against unjailed (the pre-jail path, kept as the unsafe mode).

    PYTHONPATH=$PWD python scripts/bench_jail.py [--calls 20]

Runs on the real fixture world (built once into a temporary folder). Prints one line per
tool and mode and the difference of the medians; exits 1 when the jail is unavailable.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from pytest_tooleval.tools import jail
from pytest_tooleval.tools.builtin import BuiltinToolProvider
from pytest_tooleval.world.factory import WorldFactory

CODE = "import json, os\nprint(len(os.listdir('.')), json.dumps({'a': 1}))"


@contextlib.contextmanager
def unjailed() -> Iterator[None]:
    original = jail.use_jail
    jail.use_jail = lambda unsafe: False  # type: ignore[assignment]
    try:
        yield
    finally:
        jail.use_jail = original  # type: ignore[assignment]


def timed(provider: BuiltinToolProvider, tool: str, args: dict[str, str], calls: int
          ) -> list[float]:
    times = []
    for _ in range(calls):
        started = time.perf_counter()
        result = provider.call(tool, args)
        times.append(time.perf_counter() - started)
        if result.is_error:
            raise SystemExit(f"{tool} failed: {result.text}")
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20)
    options = parser.parse_args()
    if not jail.probe().available:
        print(f"the jail is unavailable here: {jail.probe().detail}")
        return 1
    base = Path(tempfile.mkdtemp(prefix="tooleval-bench-jail-"))
    try:
        factory = WorldFactory(base)
        world = factory.new_case_world(base / "case" / "world")
        provider = BuiltinToolProvider(lambda context: world, unsafe_no_jail=True)
        provider.use_world(world)
        print(f"{jail.probe().version}; {options.calls} calls each, after one warm-up call")
        for tool, args in (("run_python", {"code": CODE}), ("git_status", {})):
            medians = {}
            for mode in ("unjailed", "jailed"):
                with unjailed() if mode == "unjailed" else contextlib.nullcontext():
                    timed(provider, tool, args, 1)
                    times = timed(provider, tool, args, options.calls)
                medians[mode] = statistics.median(times)
                print(f"{tool:<11} {mode:<9} median {1000 * medians[mode]:7.1f} ms  "
                      f"(min {1000 * min(times):6.1f}, max {1000 * max(times):6.1f})")
            print(f"{tool:<11} overhead  {1000 * (medians['jailed'] - medians['unjailed']):+7.1f}"
                  " ms a call (median jailed - median unjailed)")
        provider.close()
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
