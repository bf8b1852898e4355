"""Prefix reuse that keeps transcripts independent of the order cases run in.

Evaluating a prompt's shared prefix once and reusing its KV cache is the main saving on a
CPU, but llama.cpp's numbers for a token depend slightly on how the tokens were batched: a
suffix evaluated from a reused prefix can differ in the last bits from the same suffix in
one batch from scratch, and at a near tie that changes the chosen token. So reuse here
happens only at *canonical boundaries*: cut points fixed by the prompt's own text (the line
ends of the system message, where the tool block lives). The head of a prompt is always
evaluated one canonical segment per batch, so the KV state at a boundary is a function of
the tokens before it alone, however it was reached: from scratch, from the previous case's
context, or from a saved state. Beyond the head, reuse is allowed only within one
conversation (the next round of the same case), whose history is itself fixed by the case.

Pure planning and a bounded LRU of saved states; the worker process does the evaluating.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


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
    (a cut inside a merged token is dropped), increasing and short of the last token.

    A cut less than ``min_segment`` tokens after the previous kept one is dropped (small
    batches evaluate slowly); decided left to right, so it depends on the prefix alone.
    """
    found: list[int] = []
    for tokens in prefixes:
        n = len(tokens)
        if not 0 < n < len(prompt) or n - (found[-1] if found else 0) < min_segment:
            continue
        if list(prompt[:n]) == list(tokens):
            found.append(n)
    return found


class StateCache:
    """Saved KV states of canonical heads, least recently used evicted first, bounded by
    count and by bytes. Keys are token tuples; values opaque bytes."""

    def __init__(self, max_states: int = 4, max_bytes: int = 512 * 2**20) -> None:
        self.max_states = max_states
        self.max_bytes = max_bytes
        self._states: OrderedDict[tuple[int, ...], bytes] = OrderedDict()
        self.bytes = 0
        self.hits = self.misses = self.saved = 0

    def __len__(self) -> int:
        return len(self._states)

    def __contains__(self, key: object) -> bool:
        return key in self._states

    def get(self, key: tuple[int, ...]) -> bytes | None:
        state = self._states.get(key)
        if state is None:
            self.misses += 1
            return None
        self._states.move_to_end(key)
        self.hits += 1
        return state

    def put(self, key: tuple[int, ...], state: bytes) -> None:
        if self.max_states <= 0 or len(state) > self.max_bytes:
            return
        if key in self._states:
            self.bytes -= len(self._states.pop(key))
        self._states[key] = state
        self.bytes += len(state)
        self.saved += 1
        while len(self._states) > self.max_states or self.bytes > self.max_bytes:
            _, dropped = self._states.popitem(last=False)
            self.bytes -= len(dropped)

    def describe(self) -> dict[str, int]:
        return {"states": len(self._states), "max_states": self.max_states,
                "bytes": self.bytes, "hits": self.hits, "misses": self.misses,
                "saved": self.saved}
