"""Greedy decoding under a grammar, checking the grammar against one token first.

llama-cpp-python applies the grammar to the whole vocabulary before every pick. Under greedy
decoding it is enough to ask the grammar about the highest-scoring token and apply it to the
whole vocabulary only when it rejects that one: the same token at every step, ties included.
Only for temperature 0 with neutral penalties: with sampling, a rejected-then-resampled draw
has another distribution.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
from typing import Any


class GreedyGrammarSampler:
    """Stands in for ``llama_cpp._internals.LlamaSampler`` in ``Llama.generate`` (which calls
    only ``sample(ctx, idx)``), for greedy decoding under ``grammar``."""

    def __init__(self, lib: Any, model: Any, grammar: Any, n_vocab: int,
                 counters: dict[str, int]) -> None:
        import numpy as np

        self.lib, self.np, self.n_vocab = lib, np, n_vocab
        self.greedy = lib.llama_sampler_init_greedy()
        self.grammar = lib.llama_sampler_init_grammar(
            model.vocab, grammar._grammar.encode("utf-8"), grammar._root.encode("utf-8"))
        if not self.grammar:
            self.close()
            raise ValueError("llama.cpp could not build the grammar sampler")
        self._one = (lib.llama_token_data * 1)()
        self._one_array = lib.llama_token_data_array(
            data=self._one, size=1, selected=-1, sorted=False)
        self._all = (lib.llama_token_data * n_vocab)()
        self._all_view = np.ctypeslib.as_array(self._all)  # a structured view, no copy
        self._ids = np.arange(n_vocab, dtype=np.int32)
        self.counters = counters

    def sample(self, ctx: Any, idx: int = -1) -> int:
        lib = self.lib
        token = int(lib.llama_sampler_sample(self.greedy, ctx.ctx, idx))
        self.counters["steps"] += 1
        self._one[0].id, self._one[0].logit, self._one[0].p = token, 0.0, 0.0
        self._one_array.size, self._one_array.selected = 1, -1
        lib.llama_sampler_apply(self.grammar, ctypes.byref(self._one_array))
        if not math.isfinite(self._one[0].logit):  # rejected: the whole vocabulary
            self.counters["full_applies"] += 1
            token = self._best_allowed(ctx, idx)
        lib.llama_sampler_accept(self.grammar, token)
        return token

    def _best_allowed(self, ctx: Any, idx: int) -> int:
        np, lib = self.np, self.lib
        logits = np.ctypeslib.as_array(lib.llama_get_logits_ith(ctx.ctx, idx),
                                       shape=(self.n_vocab,))
        view = self._all_view
        view["id"], view["logit"], view["p"] = self._ids, logits, 0.0
        array = lib.llama_token_data_array(data=self._all, size=self.n_vocab, selected=-1,
                                           sorted=False)
        lib.llama_sampler_apply(self.grammar, ctypes.byref(array))
        return int(np.argmax(view["logit"]))  # the first of equal maxima, as greedy picks

    def close(self) -> None:
        for name in ("greedy", "grammar"):
            sampler = getattr(self, name, None)
            if sampler:
                self.lib.llama_sampler_free(sampler)
                setattr(self, name, None)

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # at shutdown the library may be gone
            self.close()


def install(llama: Any, lib: Any) -> dict[str, int]:
    """Route ``llama``'s greedy grammar-constrained generations through
    :class:`GreedyGrammarSampler`; everything else keeps the library's own chain. Returns
    live counters: generations served, tokens sampled, whole-vocabulary applies."""
    original = llama._init_sampler
    counters = {"generations": 0, "steps": 0, "full_applies": 0}

    def init_sampler(**options: Any) -> Any:
        neutral = (options.get("temp") == 0.0 and options.get("logits_processor") is None
                   and options.get("repeat_penalty", 1.0) == 1.0
                   and options.get("frequency_penalty", 0.0) == 0.0
                   and options.get("presence_penalty", 0.0) == 0.0
                   and options.get("mirostat_mode", 0) == 0)
        if not (neutral and options.get("grammar") is not None):
            return original(**options)
        counters["generations"] += 1
        return GreedyGrammarSampler(lib, llama._model, options["grammar"], llama._n_vocab,
                                    counters)

    llama._init_sampler = init_sampler
    return counters
