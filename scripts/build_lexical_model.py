"""Regenerate the router's learned lexical cue from the repository's case files.

    python scripts/build_lexical_model.py          # writes router/lexical_model.json
    python scripts/build_lexical_model.py --check  # exit 1 when the committed file is stale

The training set is ``pytest_tooleval.router.lexical_train.SOURCES`` (the corpus and the
router evaluation sets' tuning halves); the build is deterministic, so the committed file
must equal what this prints (tests/router/test_router_lexical.py checks it).
"""

from __future__ import annotations

import argparse
import sys

from pytest_tooleval.router.lexical import MODEL_FILE
from pytest_tooleval.router.lexical_train import build, gather


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args()
    samples = gather()
    text = build(samples=samples).to_json()
    if args.check:
        current = MODEL_FILE.read_text(encoding="utf-8") if MODEL_FILE.is_file() else ""
        if current != text:
            print(f"{MODEL_FILE} is stale: run python scripts/build_lexical_model.py")
            return 1
        print(f"{MODEL_FILE} is up to date")
        return 0
    MODEL_FILE.write_text(text, encoding="utf-8")
    print(f"wrote {MODEL_FILE}: {len(samples)} steps, {len(text)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
