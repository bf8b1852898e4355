"""Prefix reuse that keeps transcripts independent of the order cases run in.

llama.cpp's numbers depend slightly on how tokens were batched, so reuse happens only at
*canonical boundaries* (the system message's line ends), the head evaluated one segment per
batch: the KV state at a boundary is then a function of the tokens before it alone. Beyond
the head, reuse is allowed only within one conversation (docs/grammar.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    pairs = enumerate(zip(a, b, strict=False))
    return next((i for i, (x, y) in pairs if x != y), min(len(a), len(b)))


@dataclass(frozen=True)
class Plan:
    """Keep the context's first ``keep`` tokens; evaluate the rest one batch per segment
    (``segments``: end positions, the last one the prompt's end); afterwards the context is
    canonical at ``canonical``."""

    keep: int
    segments: tuple[int, ...]
    canonical: tuple[int, ...]


def plan(
    context: Sequence[int],
    context_canonical: Sequence[int],
    prompt: Sequence[int],
    boundaries: Sequence[int],
    *,
    continues: bool,
    reuse: bool = True,
) -> Plan:
    """``context``: the tokens whose KV is in the context now; ``context_canonical``: its
    canonical boundaries; ``boundaries``: the new prompt's (increasing, each < len(prompt)).
    ``continues``: the prompt extends the conversation that produced the context.
    At least the prompt's last token is always evaluated (its logits are sampled from).
    """
    limit = len(prompt) - 1
    shared = min(common_prefix(context, prompt), limit) if reuse else 0
    # The longest run of boundaries both sides agree on, within the shared tokens.
    agreed = 0
    for mine, theirs in zip(boundaries, context_canonical, strict=False):
        if mine != theirs or mine > shared:
            break
        agreed = mine
    keep = agreed
    if continues and reuse and shared > agreed:
        keep = shared  # the same conversation: its history is fixed by the case
    # Resuming at a canonical point, what follows is canonical too; past it, the KV follows
    # the conversation's own batching.
    canonical = tuple(b for b in boundaries if keep == agreed or b <= agreed)
    segments = tuple(b for b in boundaries if b > keep) + (len(prompt),)
    return Plan(keep, segments, canonical)


def aligned_boundaries(
    prompt: Sequence[int], prefixes: Sequence[Sequence[int]], min_segment: int = 1
) -> list[int]:
    """Token positions of the cut points whose tokenisation is a prefix of the prompt's
    (a cut inside a merged token is dropped), increasing and short of the last token; a cut
    less than ``min_segment`` tokens after the previous kept one is dropped too."""
    found: list[int] = []
    for tokens in prefixes:
        n = len(tokens)
        if not 0 < n < len(prompt) or n - (found[-1] if found else 0) < min_segment:
            continue
        if list(prompt[:n]) == list(tokens):
            found.append(n)
    return found
