"""The model process of the embedded backend (``python -m``, served by ``model_process``):
loads the GGUF with the weight buffers safe on this CPU (``llama_cpu``), evaluates prompts
with order-independent prefix reuse (``kv_reuse``) and samples with llama-cpp-python.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import sys
import time
from collections.abc import Iterator
from typing import Any

from pytest_tooleval.models import grammar as envelope
from pytest_tooleval.models import greedy_grammar, kv_reuse, llama_cpu
from pytest_tooleval.models.model_process import ModelRequestFailed, serve

#: "off": greedy grammar-constrained decoding through llama-cpp-python's own sampler chain
#: (the whole vocabulary checked at every token) instead of ``greedy_grammar`` (same tokens).
GREEDY_GRAMMAR_ENV = "TOOLEVAL_GREEDY_GRAMMAR"
#: Canonical segments shorter than this many tokens join the previous one.
MIN_SEGMENT = 32
_BUFFER_WORDS = ("buffer type", "REPACK", "AMX", "extra buffer")


class LlamaLog:
    """llama.cpp's log, copied to stderr (whose tail the controller shows if this process
    dies); the load's lines are kept."""

    def __init__(self, llama_cpp: Any) -> None:
        self.load_lines: list[str] = []
        self.loading = True

        @llama_cpp.llama_log_callback
        def callback(level: int, text: bytes, _: ctypes.c_void_p) -> None:
            line = text.decode("utf-8", errors="replace")
            if self.loading:
                self.load_lines.append(line)
            with contextlib.suppress(Exception):
                sys.stderr.write(line)

        self._callback = callback  # keep a reference: llama.cpp holds only the pointer
        llama_cpp.llama_log_set(callback, ctypes.c_void_p(0))

    def buffer_lines(self) -> list[str]:
        """What the load said about weight buffer types (repacking, AMX)."""
        return [line.strip() for line in "".join(self.load_lines).splitlines()
                if any(word in line for word in _BUFFER_WORDS)]


@contextlib.contextmanager
def model_params_with(llama_cpp: Any, use_extra_bufts: bool) -> Iterator[None]:
    """``Llama(...)`` has no keyword for ``use_extra_bufts``; it builds its model params
    from ``llama_model_default_params()``, so that call answers with the field set."""
    module = llama_cpp.llama_cpp
    original = module.llama_model_default_params
    if not hasattr(original(), "use_extra_bufts"):
        raise ModelRequestFailed("this llama-cpp-python has no llama_model_params."
                                 "use_extra_bufts; install llama-cpp-python 0.3.36 or later",
                                 "load")

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
            raise ModelRequestFailed(f"llama-cpp-python is not installed: {error}",
                                     "missing") from None
        self.lib = llama_cpp
        self.log = LlamaLog(llama_cpp)
        self.system_info = llama_cpp.llama_print_system_info().decode("utf-8", errors="replace")
        self.buffers = llama_cpu.choose(hello["extra_buffers"], self.system_info)
        threads = int(hello["n_threads"])
        try:
            with model_params_with(llama_cpp, self.buffers.use_extra_bufts):
                self.llama = llama_cpp.Llama(
                    model_path=hello["model_path"], n_ctx=hello["n_ctx"],
                    n_batch=512, n_threads=threads, n_threads_batch=threads,
                    seed=hello["seed"], verbose=False,
                )
        except (ValueError, RuntimeError) as error:  # a bad or unreadable file
            raise ModelRequestFailed(f"cannot load {hello['model_path']}: {error}",
                                     "load") from None
        finally:
            self.log.loading = False
        if bool(self.llama.model_params.use_extra_bufts) != self.buffers.use_extra_bufts:
            raise ModelRequestFailed("use_extra_bufts did not reach the model parameters", "load")
        self.n_ctx = int(hello["n_ctx"])
        self.reuse = bool(hello["prefix_cache"])
        self.sampling = dict(hello["sampling"])
        metadata = self.llama.metadata
        self.add_bos = metadata.get("tokenizer.ggml.add_bos_token", "true") != "false"
        self.bos_text = self._token_text(self.llama.token_bos())
        self.eos_text = self._token_text(self.llama.token_eos())
        self.stop = [self.eos_text] if self.eos_text else []  # the end-of-turn text too
        self.canonical: tuple[int, ...] = ()
        self.totals: dict[str, float] = dict.fromkeys(
            ("prompt_tokens", "evaluated", "completion_tokens", "eval_s", "generate_s"), 0)
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
            "llama_cpp": getattr(self.lib, "__version__", "unknown"),
            "chat_template": metadata.get("tokenizer.chat_template"),
            "model_name": metadata.get("general.name"),
            "bos_text": self.bos_text,
            "eos_text": self.eos_text,
            "system_info": self.system_info,
            "use_extra_bufts": self.buffers.use_extra_bufts,
            "weight_buffers": self.buffers.describe(),
            "buffer_log": self.log.buffer_lines(),
            "greedy_grammar": self.greedy is not None,
        }

    def tokenize(self, text: str) -> list[int]:
        add_bos = self.add_bos and not (self.bos_text and text.startswith(self.bos_text))
        return list(self.llama.tokenize(text.encode("utf-8"), add_bos=add_bos, special=True))

    def boundaries(self, prompt: str, tokens: list[int], cuts: list[int]) -> list[int]:
        prefixes = [self.tokenize(prompt[:cut]) for cut in sorted(set(cuts))
                    if 0 < cut < len(prompt)]
        return kv_reuse.aligned_boundaries(tokens, prefixes, MIN_SEGMENT)

    def grammar(self, schema: dict[str, Any]) -> Any:
        """Checked by llama.cpp's parser before use (an invalid grammar in a sampler would
        crash this process)."""
        try:
            gbnf = envelope.schema_to_gbnf(schema)
            envelope.validate_gbnf(self.llama._model.vocab, gbnf)
        except envelope.GrammarError as error:
            raise ModelRequestFailed(str(error), "grammar") from None
        return self.lib.LlamaGrammar.from_string(gbnf, verbose=False)

    def evaluate(self, tokens: list[int], boundaries: list[int], continues: bool) -> dict[str, Any]:
        llama = self.llama
        context = list(llama.input_ids[: llama.n_tokens])
        step = kv_reuse.plan(context, self.canonical, tokens, boundaries, continues=continues,
                             reuse=self.reuse)
        if step.keep == 0:
            llama._ctx.kv_cache_clear()
        llama.n_tokens = step.keep
        position = step.keep
        for end in step.segments:
            llama.eval(tokens[position:end])
            position = end
        self.canonical = step.canonical
        return {"prompt_tokens": len(tokens), "evaluated": len(tokens) - step.keep,
                "kept": step.keep}

    def complete(self, message: dict[str, Any]) -> dict[str, Any]:
        """``message``: a request as ``LlamaBackend.complete`` sends it, every key present."""
        prompt: str = message["prompt"]
        tokens = self.tokenize(prompt)
        if len(tokens) >= self.n_ctx:
            raise ModelRequestFailed(
                f"Requested tokens ({len(tokens)}) exceed context window of {self.n_ctx}",
                "context")
        grammar = self.grammar(message["schema"]) if message["schema"] else None
        started = time.perf_counter()
        stats = self.evaluate(tokens, self.boundaries(prompt, tokens, message["cuts"]),
                              message["continues"])
        evaluated_at = time.perf_counter()
        sampling = {**self.sampling, "seed": message["seed"]}
        result: dict[str, Any] = self.llama.create_completion(  # type: ignore[assignment]
            tokens, grammar=grammar, stop=self.stop, **sampling)  # not streamed: one dict
        choice = result["choices"][0]
        usage = result.get("usage") or {}
        reply = {
            "text": choice.get("text") or "",
            "finish_reason": choice.get("finish_reason"),
            "completion_tokens": usage.get("completion_tokens"),
            "eval_s": evaluated_at - started,
            "generate_s": time.perf_counter() - evaluated_at,
            **stats,
        }
        for key in self.totals:
            self.totals[key] += reply[key] or 0
        return reply

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        op = message.get("op")
        if op == "complete":
            return self.complete(message)
        if op == "tokenize":
            return {"tokens": self.tokenize(message["text"])}
        if op == "stats":
            return {"totals": dict(self.totals),
                    "greedy_grammar": dict(self.greedy) if self.greedy is not None else None,
                    "max_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}
        raise ModelRequestFailed(f"unknown request {op!r}", "internal")


def main() -> None:
    engines: list[Engine] = []  # the one loaded by the first request ("load")

    def handle(message: dict[str, Any]) -> dict[str, Any]:
        if message.get("op") == "load":
            engines[:] = [Engine(message)]
            return engines[0].hello_reply()
        return engines[0].handle(message)

    serve(handle)


if __name__ == "__main__":
    main()
