"""``--tooleval-shard i/N``: the case items sorted by node id and dealt round-robin, so
shards are balanced, deterministic and together hold each case once. Other items are kept
by every shard.
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
                nodeid: Callable[[T], str]) -> list[T]:
    """The items this shard keeps, in their original order."""
    index, count = shard
    cases = sorted(nodeid(item) for item in items if is_case(item))
    mine = {name for position, name in enumerate(cases) if position % count == index - 1}
    return [item for item in items if not is_case(item) or nodeid(item) in mine]
