"""``--tooleval-shard i/N``: a deterministic, balanced share of the selected cases.

The selected case items are sorted by node id and dealt round-robin: shard ``i`` keeps
positions ``i-1, i-1+N, …``, so every shard holds the same number of cases to within one,
the same command on any machine selects the same cases, and the N shards together hold
each case exactly once. Items that are not cases are kept by every shard.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


class ShardError(ValueError):
    pass


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/4"`` → ``(2, 4)``; anything else is refused with how to write it."""
    index, slash, count = text.partition("/")
    try:
        i, n = int(index), int(count)
    except ValueError:
        i = n = 0
    if not slash or n < 1 or not 1 <= i <= n:
        raise ShardError(f"--tooleval-shard expects I/N with 1 <= I <= N (e.g. 2/4), got "
                         f"{text!r}")
    return i, n


def shard_items(items: Sequence[T], shard: tuple[int, int], is_case: Callable[[T], bool],
                nodeid: Callable[[T], str]) -> tuple[list[T], list[T]]:
    """(kept, dropped), the kept ones in their original order."""
    index, count = shard
    cases = sorted(nodeid(item) for item in items if is_case(item))
    mine = {name for position, name in enumerate(cases) if position % count == index - 1}
    kept = [item for item in items if not is_case(item) or nodeid(item) in mine]
    dropped = [item for item in items if is_case(item) and nodeid(item) not in mine]
    return kept, dropped
