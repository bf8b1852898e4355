"""The model process of the embedded backend: owns the ``Llama`` object.

Started by ``LlamaBackend`` as ``python -m pytest_tooleval.models.llama_worker`` and spoken
to through ``model_process`` frames. It loads the GGUF with the weight buffers that are safe
on this CPU (``llama_cpu``), tokenizes, evaluates the prompt with order-independent prefix
reuse (``kv_reuse``) and samples with llama-cpp-python. Nothing here runs in the pytest
process, so a native crash costs one case, not the run.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
import time
from collections import deque
from collections.abc import Iterator
from typing import Any

from pytest_tooleval.models import grammar as envelope
from pytest_tooleval.models import greedy_grammar, kv_reuse, llama_cpu
from pytest_tooleval.models.model_process import WorkerRefusal, serve

#: Saved head states kept per model process (0 turns the state cache off).
STATE_CACHE_ENV = "TOOLEVAL_LLAMA_STATE_CACHE"
#: "off": greedy grammar-constrained decoding through llama-cpp-python's own sampler chain
#: (the whole vocabulary checked at every token) instead of ``greedy_grammar`` (same tokens).
GREEDY_GRAMMAR_ENV = "TOOLEVAL_GREEDY_GRAMMAR"
DEFAULT_STATE_CACHE = 4
#: Canonical segments shorter than this many tokens join the previous one.
MIN_SEGMENT = 32
_BUFFER_WORDS = ("buffer type", "REPACK", "AMX", "extra buffer")


class LlamaLog:
    """llama.cpp's log, kept in memory (the load's lines in full, later ones bounded) and
    copied to stderr, whose tail the controller shows if this process dies."""

    def __init__(self, llama_cpp: Any) -> None:
        self.load_lines: list[str] = []
        self.recent: deque[str] = deque(maxlen=200)
        self.loading = True

        @llama_cpp.llama_log_callback
        def callback(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
            line = text.decode("utf-8", errors="replace")
            (self.load_lines if self.loading else self.recent).append(line)
            with contextlib.suppress(Exception):
                sys.stderr.write(line)

        self._callback = callback  # keep a reference: llama.cpp holds only the pointer
        llama_cpp.llama_log_set(callback, ctypes.c_void_p(0))

    def buffer_lines(self) -> list[str]:
        """What the load said about weight buffer types (repacking, AMX)."""
        text = "".join(self.load_lines)
        return [line.strip() for line in text.splitlines()
                if any(word in line for word in _BUFFER_WORDS)]


@contextlib.contextmanager
def model_params_with(llama_cpp: Any, use_extra_bufts: bool) -> Iterator[None]:
    """``Llama(...)`` has no keyword for ``use_extra_bufts``; it builds its model params
    from ``llama_model_default_params()``, so that call answers with the field set while
    the model loads (this process is single-threaded and loads one model)."""
    module = llama_cpp.llama_cpp
    original = module.llama_model_default_params
    if not hasattr(original(), "use_extra_bufts"):
        raise WorkerRefusal("this llama-cpp-python has no llama_model_params.use_extra_bufts; "
                            "install llama-cpp-python 0.3.36 or later", "load")

    def patched() -> Any:
        params = original()
        params.use_extra_bufts = use_extra_bufts
        return params

    module.llama_model_default_params = patched
    try:
        yield
    finally:
        module.llama_model_default_params = original


class Engine:
    def __init__(self, hello: dict[str, Any]) -> None:
        try:
            import llama_cpp
        except ImportError as error:
            raise WorkerRefusal(f"llama-cpp-python is not installed: {error}", "missing") from None
        self.lib = llama_cpp
        self.log = LlamaLog(llama_cpp)
        self.system_info = llama_cpp.llama_print_system_info().decode("utf-8", errors="replace")
        self.buffers = llama_cpu.choose(hello.get("extra_buffers"), self.system_info)
        threads = int(hello["n_threads"])
        try:
            with model_params_with(llama_cpp, self.buffers.use_extra_bufts):
                self.llama = llama_cpp.Llama(
                    model_path=hello["model_path"], n_ctx=hello["n_ctx"],
                    n_batch=hello["n_batch"], n_threads=threads, n_threads_batch=threads,
                    seed=hello["seed"], verbose=bool(hello.get("verbose")),
                )
        except (ValueError, RuntimeError) as error:  # a bad or unreadable file
            raise WorkerRefusal(f"cannot load {hello['model_path']}: {error}", "load") from None
        finally:
            self.log.loading = False
        if bool(self.llama.model_params.use_extra_bufts) != self.buffers.use_extra_bufts:
            raise WorkerRefusal("use_extra_bufts did not reach the model parameters", "load")
        self.n_ctx = int(hello["n_ctx"])
        self.reuse = bool(hello.get("prefix_cache", True))
        self.sampling = dict(hello["sampling"])
        metadata = self.llama.metadata
        self.add_bos = metadata.get("tokenizer.ggml.add_bos_token", "true") != "false"
        self.bos_text = self._token_text(self.llama.token_bos())
        self.eos_text = self._token_text(self.llama.token_eos())
        self.stop = [self.eos_text] if self.eos_text else []  # the end-of-turn text too
        size = int(os.environ.get(STATE_CACHE_ENV, DEFAULT_STATE_CACHE))
        self.states = kv_reuse.StateCache(max_states=size if self.reuse else 0)
        self.canonical: tuple[int, ...] = ()
        self._prefixes: dict[str, list[int]] = {}
        self._grammars: dict[str, Any] = {}
        self.totals: dict[str, float] = {"prompt_tokens": 0, "evaluated": 0, "restored": 0,
                                          "generated": 0, "eval_s": 0.0, "generate_s": 0.0}
        self.greedy: dict[str, int] | None = None
        if os.environ.get(GREEDY_GRAMMAR_ENV, "on") != "off":
            self.greedy = greedy_grammar.install(self.llama, self.lib)

    def _token_text(self, token: int) -> str:
        if token < 0:
            return ""
        return self.llama.detokenize([token], special=True).decode("utf-8", errors="replace")

    def hello_reply(self) -> dict[str, Any]:
        metadata = self.llama.metadata
        return {
            "pid": os.getpid(),
            "llama_cpp": getattr(self.lib, "__version__", "unknown"),
            "chat_template": metadata.get("tokenizer.chat_template"),
            "model_name": metadata.get("general.name"),
            "bos_text": self.bos_text,
            "eos_text": self.eos_text,
            "system_info": self.system_info,
            "use_extra_bufts": self.buffers.use_extra_bufts,
            "weight_buffers": self.buffers.describe(),
            "buffer_log": self.log.buffer_lines(),
            "state_cache": self.states.max_states,
            "greedy_grammar": self.greedy is not None,
        }

    # -- tokens -------------------------------------------------------------------------------
    def tokenize(self, text: str) -> list[int]:
        add_bos = self.add_bos and not (self.bos_text and text.startswith(self.bos_text))
        return list(self.llama.tokenize(text.encode("utf-8"), add_bos=add_bos, special=True))

    def _prefix_tokens(self, text: str) -> list[int]:
        tokens = self._prefixes.get(text)
        if tokens is None:
            if len(self._prefixes) > 8192:
                self._prefixes.clear()
            tokens = self._prefixes[text] = self.tokenize(text)
        return tokens

    def boundaries(self, prompt: str, tokens: list[int], cuts: list[int]) -> list[int]:
        prefixes = [self._prefix_tokens(prompt[:cut]) for cut in sorted(set(cuts))
                    if 0 < cut < len(prompt)]
        return kv_reuse.aligned_boundaries(tokens, prefixes, MIN_SEGMENT)

    # -- grammar ------------------------------------------------------------------------------
    def grammar(self, schema_json: str) -> Any:
        """Built once per tool set and checked by llama.cpp's parser before use (an invalid
        grammar in a sampler would crash this process)."""
        grammar = self._grammars.get(schema_json)
        if grammar is None:
            import json


            try:
                gbnf = envelope.schema_to_gbnf(json.loads(schema_json))
                envelope.validate_gbnf(self.llama._model.vocab, gbnf)
            except envelope.GrammarError as error:
                raise WorkerRefusal(str(error), "grammar") from None
            grammar = self.lib.LlamaGrammar.from_string(gbnf, verbose=False)
            self._grammars[schema_json] = grammar
        return grammar

    # -- evaluation ---------------------------------------------------------------------------
    def _save_state(self) -> bytes:
        ctx = self.llama._ctx.ctx
        size = self.lib.llama_state_seq_get_size(ctx, 0)
        buffer = (ctypes.c_uint8 * size)()
        written = self.lib.llama_state_seq_get_data(ctx, buffer, size, 0)
        return bytes(buffer[:written])

    def _restore_state(self, tokens: list[int], state: bytes) -> bool:
        ctx = self.llama._ctx.ctx
        self.llama._ctx.kv_cache_clear()  # cells from 0, as a fresh evaluation has them
        buffer = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
        if not self.lib.llama_state_seq_set_data(ctx, buffer, len(state), 0):
            self.llama.n_tokens = 0
            return False
        self.llama.input_ids[: len(tokens)] = tokens
        self.llama.n_tokens = len(tokens)
        return True

    def evaluate(self, tokens: list[int], boundaries: list[int], continues: bool) -> dict[str, Any]:
        llama = self.llama
        context = list(llama.input_ids[: llama.n_tokens])
        step = kv_reuse.plan(context, self.canonical, tokens, boundaries, continues=continues,
                             reuse=self.reuse)
        head = boundaries[-1] if boundaries else 0
        restored = False
        if head > step.keep and self.states.max_states:
            state = self.states.get(tuple(tokens[:head]))
            if state is not None and self._restore_state(tokens[:head], state):
                restored = True
                self.canonical = tuple(b for b in boundaries if b <= head)
                step = kv_reuse.plan(tokens[:head], self.canonical, tokens, boundaries,
                                     continues=False, reuse=True)
        if step.keep == 0:
            llama._ctx.kv_cache_clear()
        llama.n_tokens = step.keep
        position = step.keep
        for end in step.segments:
            llama.eval(tokens[position:end])
            position = end
            if (end == head and head in step.canonical and self.states.max_states
                    and tuple(tokens[:head]) not in self.states):
                self.states.put(tuple(tokens[:head]), self._save_state())
        self.canonical = step.canonical
        evaluated = len(tokens) - step.keep
        self.totals["prompt_tokens"] += len(tokens)
        self.totals["evaluated"] += evaluated
        self.totals["restored"] += int(restored)
        return {"prompt_tokens": len(tokens), "evaluated": evaluated, "kept": step.keep,
                "restored": restored}

    def complete(self, message: dict[str, Any]) -> dict[str, Any]:
        prompt: str = message["prompt"]
        tokens = self.tokenize(prompt)
        if len(tokens) >= self.n_ctx:
            raise WorkerRefusal(
                f"Requested tokens ({len(tokens)}) exceed context window of {self.n_ctx}",
                "context")
        grammar = self.grammar(message["schema"]) if message.get("schema") else None
        started = time.perf_counter()
        stats = self.evaluate(tokens, self.boundaries(prompt, tokens, message.get("cuts", [])),
                              bool(message.get("continues")))
        evaluated_at = time.perf_counter()
        sampling = dict(self.sampling)
        if message.get("seed") is not None:
            sampling["seed"] = int(message["seed"])
        result: dict[str, Any] = self.llama.create_completion(  # type: ignore[assignment]
            tokens, grammar=grammar, stop=self.stop, **sampling)  # not streamed: one dict
        choice = result["choices"][0]
        usage = result.get("usage") or {}
        finished = time.perf_counter()
        self.totals["generated"] += int(usage.get("completion_tokens") or 0)
        self.totals["eval_s"] += evaluated_at - started
        self.totals["generate_s"] += finished - evaluated_at
        return {
            "text": choice.get("text") or "",
            "finish_reason": choice.get("finish_reason"),
            "prompt_tokens": usage.get("prompt_tokens"),
            "completion_tokens": usage.get("completion_tokens"),
            "eval_s": evaluated_at - started,
            "generate_s": finished - evaluated_at,
            **stats,
        }

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        op = message.get("op")
        if op == "complete":
            return self.complete(message)
        if op == "tokenize":
            return {"tokens": self.tokenize(message["text"])}
        if op == "stats":
            return {"totals": dict(self.totals), "state_cache": self.states.describe(),
                    "greedy_grammar": dict(self.greedy) if self.greedy is not None else None,
                    "max_rss_kib": _max_rss_kib()}
        raise WorkerRefusal(f"unknown request {op!r}", "internal")


def _max_rss_kib() -> int:
    import resource

    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def main() -> None:
    engine: Engine | None = None

    def handle(message: dict[str, Any]) -> dict[str, Any]:
        nonlocal engine
        if message.get("op") == "load":
            engine = Engine(message)
            return engine.hello_reply()
        if engine is None:
            raise WorkerRefusal("no model loaded", "internal")
        return engine.handle(message)

    serve(handle)


if __name__ == "__main__":
    main()
