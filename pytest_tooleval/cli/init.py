"""``tooleval init``: a starting project (the files are scaffold.py's)."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from pytest_tooleval.cli.common import Refused, arg, command
from pytest_tooleval.scaffold import FILES, NEXT


@command("tooleval init",
         "Create a starting project: tooleval.toml (the model), conftest.py (an example "
         "tool) and benchmarks/my-first.json (three cases with gold paths). Refuses, writing "
         "nothing, when any of these files exists.",
         arg("folder", nargs="?", type=Path, default=Path("."),
             help="where to create it (default: the current folder)"))
def main(options: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """0 when written, 2 when a file is in the way (nothing written) or on usage errors."""
    folder: Path = options.folder
    if folder.exists() and not folder.is_dir():
        raise Refused(f"{folder} is not a folder")
    existing = [name for name in FILES if (folder / name).exists()]
    existing += [parent for parent in ("benchmarks",) if (folder / parent).exists()
                 and not (folder / parent).is_dir()]
    if existing:
        raise Refused(f"{folder / existing[0]} already exists; nothing was written. Run "
                      "tooleval init in an empty folder (tooleval init NEW-FOLDER), or move "
                      f"{', '.join(existing)} away first.")
    try:
        for name, text in FILES.items():
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("x", encoding="utf-8") as file:  # never over a file made meanwhile
                file.write(text)
    except OSError as exc:
        raise Refused(f"cannot write {exc.filename}: {exc.strerror}") from None
    print(f"tooleval init: created in {folder.resolve()}:")
    for name in FILES:
        print(f"  {name}")
    if folder.resolve() != Path.cwd().resolve():
        print(f"cd {shlex.quote(str(folder))}")  # a line to paste: spaces quoted
    print(NEXT, end="")
    return 0
