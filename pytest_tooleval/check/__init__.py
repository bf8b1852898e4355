"""Checks that need no model: the static check (guards, requires, router coverage,
near-duplicates) in ``static``, its report in ``report``."""
