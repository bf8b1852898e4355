"""``python -m pytest_tooleval.cli``: the ``tooleval`` command."""

import sys

from pytest_tooleval.cli import main

sys.exit(main())
