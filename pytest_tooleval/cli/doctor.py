"""``tooleval doctor``: the isolation run_python and git get here, and an escape battery."""

from __future__ import annotations

import argparse
import json

from pytest_tooleval.cli.common import arg, command
from pytest_tooleval.tools import jail
from pytest_tooleval.tools.doctor import describe_machine, run_battery


@command("tooleval doctor",
         "Show the isolation run_python and the git tools get on this machine, and try a "
         "short escape battery; exit 1 when the jail is missing or anything got out.",
         arg("--json", action="store_true", help="print one JSON object"))
def main(options: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    info = describe_machine()
    attempts = run_battery() if info["jail"] else []
    ok = bool(info["jail"]) and all(a.held for a in attempts)
    if options.json:
        info["battery"] = [a.__dict__ for a in attempts]
        info["ok"] = ok
        print(json.dumps(info, indent=1))
        return 0 if ok else 1
    print(f"jail: {'yes' if info['jail'] else 'NO'} ({info['detail']})")
    print(f"bubblewrap: {info['bwrap'] or 'not installed'}"
          + (f" ({info['bwrap_version']})" if info["bwrap_version"] else ""))
    spaces = info["namespaces"]
    if isinstance(spaces, dict) and spaces:
        print("namespaces: " + ", ".join(f"{name} {'yes' if on else 'NO'}"
                                         for name, on in spaces.items()))
    print(f"git: {info['git'] or 'not installed (git tools not offered)'}")
    print(f"interpreter in the jail: {info['interpreter']}")
    limits = info["limits"]
    assert isinstance(limits, dict)
    print("limits: " + ", ".join(f"{key} {value}" for key, value in limits.items()))
    if not info["jail"]:
        print(f"run_python and the git tools are NOT offered here: {jail.INSTALL_HINT}")
        return 1
    print("escape battery (the audit hook switched off, so only the jail holds):")
    for attempt in attempts:
        print(f"  {'held' if attempt.held else 'GOT OUT'}  {attempt.name}"
              + (f": {attempt.detail}" if attempt.detail else ""))
    print("the wall holds" if ok else "THE WALL DOES NOT HOLD on this machine")
    return 0 if ok else 1
