"""Grammar "on"/"off" against OpenAI-compatible servers through raw completions.

The harness renders the prompt (llama-server's ``/apply-template``, or a template file
rendered locally) and parses the output, so "on" and "off" send the same prompt with the
same sampling and differ only in the constraint. Where "on" is sent:

- llama-server: ``/completion`` with ``json_schema``;
- other servers, ``/v1/completions`` with the first field the canary proves applied:
  ``structured_outputs.json`` (vLLM), ``grammar`` (GBNF: llama-cpp-python's server,
  llama-server), ``json_schema`` (llama-server), ``response_format`` (``json_schema``).

Servers may ignore a constraint field silently (vLLM drops the old ``guided_*`` fields
with HTTP 200), so an "on" run starts with a canary request whose only schema-valid reply
is obvious; a server that fails it for every field is refused, never reported as "on".
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytest_tooleval.models import grammar as envelope
from pytest_tooleval.models.base import (
    Backend,
    BackendConfigError,
    BackendError,
    ConstraintIgnored,
    MalformedReply,
    Message,
    ModelTurn,
    RequestRefused,
    ServerError,
    ServerTimeout,
    ServerUnreachable,
    TemplateMissing,
    fork_http_backend,
)
from pytest_tooleval.models.http import HttpClient
from pytest_tooleval.models.openai import (
    api_key_of,
    list_models,
    model_listed,
    server_defaults,
)
from pytest_tooleval.models.parsing import split_output
from pytest_tooleval.models.profiles import Profile
from pytest_tooleval.models.prompt import ChatTemplate, PromptBuilder
from pytest_tooleval.models.wire import chat_sampling, completion_text, llama_server_sampling
from pytest_tooleval.tools.base import ToolSpec

__all__ = ["CANARY_SCHEMA", "CANARY_VALUE", "ConstraintIgnored", "RawCompletionBackend",
           "ServerUnreachable"]

CANARY_VALUE = "canary-7f3e"
CANARY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"canary": {"type": "string", "enum": [CANARY_VALUE]}},
    "required": ["canary"],
    "additionalProperties": False,
}
# Asks for something else: only a constrained server writes the canary value.
CANARY_PROMPT = "Name three fruits, separated by commas.\nFruits:"
# Ways to send a JSON-schema constraint to /v1/completions, tried in order by the canary.
OPENAI_FIELDS = ("structured_outputs", "grammar", "json_schema", "response_format")
DEFAULT_SAMPLING: dict[str, Any] = {"temperature": 0.0, "seed": 0, "max_tokens": 512}


class RawCompletionBackend(Backend):
    """A remote model driven with the harness's own prompt. ``flavor``: "llama-server"
    (``/apply-template`` + ``/completion``), "openai" (``/v1/completions``; needs
    ``template``), or "auto" (llama-server when ``/apply-template`` answers)."""

    def __init__(
        self,
        base_url: str | list[str],
        *,
        grammar: str = "on",
        flavor: str = "auto",
        model: str | None = None,
        template: str | os.PathLike[str] | None = None,
        bos_token: str = "",
        eos_token: str = "",
        seed: int = 0,
        temperature: float = 0.0,
        max_tokens: int = 512,
        sampling: dict[str, Any] | None = None,
        thinking: bool = False,
        template_kwargs: dict[str, Any] | None = None,
        timeout: float = 120.0,
        retries: int = 2,
        backoff: float = 0.5,
        cache_prompt: bool = True,
        api_key: str | None = None,
        http: HttpClient | None = None,
        start_hint: str | None = None,
        connections: int = 1,
    ) -> None:
        """``sampling``: every pinned sampling field (``Profile.sampling()``); without it,
        ``seed``, ``temperature`` and ``max_tokens``."""
        if grammar not in ("on", "off"):
            raise BackendConfigError(
                f"grammar must be 'on' or 'off' for raw completions: {grammar!r}")
        if flavor not in ("auto", "llama-server", "openai"):
            raise BackendConfigError(
                f"flavor must be auto, llama-server or openai: {flavor!r}")
        self.mode = grammar
        replicas = [base_url] if isinstance(base_url, str) else list(base_url)
        self.base_url = replicas[0].rstrip("/")
        self.root_url = self.base_url.removesuffix("/v1")
        self.model = model
        self.sampling = dict(sampling) if sampling is not None else {
            "temperature": temperature, "seed": seed, "max_tokens": max_tokens}
        self.max_tokens = int(self.sampling.get("max_tokens", max_tokens))
        # llama-server's prompt cache is fast but may make repeats differ in the last bits
        self.cache_prompt = cache_prompt
        self.http = http or HttpClient(replicas, timeout=timeout, retries=retries,
                                       backoff=backoff, api_key=api_key,
                                       start_hint=start_hint, connections=connections)
        self.owns_http = True
        self._flavor = None if flavor == "auto" else flavor
        self.template_origin = "server /apply-template"
        render: Callable[[list[Message], list[dict[str, Any]] | None, dict[str, Any]], str]
        if template is not None:
            if _is_path(template) and not Path(template).is_file():
                raise TemplateMissing(
                    f"template = {str(template)!r}: no such file (from {Path.cwd()}); give the "
                    "chat template's path, or its Jinja text")
            source = Path(template).read_text() if _is_path(template) else str(template)
            self._template = ChatTemplate(source, bos_token=bos_token, eos_token=eos_token)
            self.template_origin = "template file" if _is_path(template) else "template text"
            render = self._template.render
        else:
            render = self._apply_template
        self.prompt = PromptBuilder(render, thinking=thinking, template_kwargs=template_kwargs,
                                    fatal=(ServerUnreachable, ServerTimeout))
        self._template_given = template is not None
        self._constraint_field: str | None = None
        self._canary: str | None = None  # "passed" once checked
        self._gbnf: dict[str, str] = {}
        self._preflight: dict[str, Any] | None = None
        self.last_output: str | None = None  # the raw text of the latest turn

    @classmethod
    def from_profile(cls, profile: Profile, grammar: str, *, workers: int = 1
                     ) -> RawCompletionBackend:
        if not profile.base_url:
            raise BackendConfigError(f"profile {profile.name!r} has no base_url")
        return cls(
            profile.base_url, grammar=grammar, model=profile.model, template=profile.template,
            sampling=profile.sampling(), thinking=profile.thinking, timeout=profile.timeout,
            retries=profile.retries, api_key=api_key_of(profile),
            start_hint=profile.start_hint, connections=profile.concurrency,
        )

    # -- transport -------------------------------------------------------------------------
    def _post(self, url: str, body: dict[str, Any]) -> Any:
        return self.http.post(url, body)

    @property
    def flavor(self) -> str:
        """The server kind, detected once: llama-server answers ``/apply-template``."""
        if self._flavor is None:
            try:
                reply = self._post(f"{self.root_url}/apply-template",
                                   {"messages": [{"role": "user", "content": "ping"}]})
                ok = isinstance(reply, dict) and isinstance(reply.get("prompt"), str)
                self._flavor = "llama-server" if ok else "openai"
            except (ServerUnreachable, ServerTimeout):
                raise
            except BackendError:  # an HTTP error: no such endpoint
                self._flavor = "openai"
        if self._flavor == "openai" and not self._template_given:
            raise TemplateMissing(
                f"grammar {self.mode!r} renders the prompt itself and needs the model's chat "
                f"template, but {self.base_url} has no /apply-template (it is not "
                "llama-server). Use --grammar vendor (the server's own tool calling), or "
                'set template = "path/to/chat_template.jinja" in the model profile.'
            )
        return self._flavor

    def _apply_template(
        self, messages: list[Message], tools: list[dict[str, Any]] | None, kwargs: dict[str, Any]
    ) -> str:
        body: dict[str, Any] = {"messages": messages, "add_generation_prompt": True}
        if tools:
            body["tools"] = tools
        if kwargs:
            body["chat_template_kwargs"] = kwargs
        reply = self._post(f"{self.root_url}/apply-template", body)
        prompt = reply.get("prompt") if isinstance(reply, dict) else None
        if not isinstance(prompt, str):
            raise TemplateMissing(f"{self.root_url}/apply-template returned no prompt")
        return prompt

    # -- generation ------------------------------------------------------------------------
    def _constraint(self, schema: dict[str, Any], field: str | None) -> dict[str, Any]:
        """The request fields that send ``schema`` as a constraint through ``field``."""
        if field in (None, "json_schema"):
            return {"json_schema": schema}
        if field == "structured_outputs":
            return {"structured_outputs": {"json": schema}}
        if field == "grammar":
            key = json.dumps(schema, sort_keys=True)
            if key not in self._gbnf:
                self._gbnf[key] = envelope.schema_to_gbnf(schema)
            return {"grammar": self._gbnf[key]}
        return {"response_format": {"type": "json_schema",
                                    "json_schema": {"name": "tooleval", "schema": schema,
                                                    "strict": True}}}

    def _request(self, prompt: str, schema: dict[str, Any] | None, field: str | None,
                 max_tokens: int) -> tuple[str, dict[str, Any]]:
        """(generated text, {finish_reason, prompt_tokens, completion_tokens})."""
        sampling = {**self.sampling, "max_tokens": max_tokens}
        constraint = self._constraint(schema, field) if schema is not None else {}
        if self.flavor == "llama-server":
            body: dict[str, Any] = {
                "prompt": prompt, **llama_server_sampling(sampling),
                "cache_prompt": self.cache_prompt, "stream": False, **constraint,
            }
            url = f"{self.root_url}/completion"
            reply = self._post(url, body)
            if not isinstance(reply, dict) or not isinstance(reply.get("content", ""), str):
                raise MalformedReply(f"the reply of {url} has no text content: "
                                     f"{json.dumps(reply)[:300]}")
            return str(reply.get("content") or ""), {
                "finish_reason": "length" if reply.get("stop_type") == "limit" else "stop",
                "prompt_tokens": _int_or_none(reply.get("tokens_evaluated")),
                "completion_tokens": _int_or_none(reply.get("tokens_predicted")),
            }
        body = {"model": self.model or "default", "prompt": prompt, "stream": False,
                **chat_sampling(sampling), **constraint}
        url = f"{self.base_url}/completions"
        reply = self._post(url, body)
        text, choice = completion_text(reply, url)
        usage = reply.get("usage") if isinstance(reply.get("usage"), dict) else {}
        reason = choice.get("finish_reason")
        return text, {
            "finish_reason": reason if isinstance(reason, str) else None,
            "prompt_tokens": _int_or_none(usage.get("prompt_tokens")),
            "completion_tokens": _int_or_none(usage.get("completion_tokens")),
        }

    def canary(self) -> None:
        """Grammar "on" only: find the constraint field the server applies; raises
        ``ConstraintIgnored`` if it applies none. Run by ``preflight``, or by the first
        ``complete`` if the runtime did not call it."""
        if self.mode != "on" or self._canary is not None:
            return
        fields: tuple[str | None, ...] = (
            (None,) if self.flavor == "llama-server" else OPENAI_FIELDS)
        replies = []
        for field in fields:
            try:
                text, _ = self._request(CANARY_PROMPT, CANARY_SCHEMA, field, 32)
            except (RequestRefused, ServerError) as error:  # the field is not accepted
                replies.append(f"{field}: refused ({str(error)[:160]})")
                continue
            except envelope.GrammarError as error:
                replies.append(f"{field}: cannot be built here ({error})")
                continue
            except ImportError:
                replies.append(f"{field}: skipped (building GBNF needs llama-cpp-python)")
                continue
            if _is_canary(text):
                self._constraint_field, self._canary = field, "passed"
                return
            replies.append(f"{field or 'json_schema'}: {text[:80]!r}")
        raise ConstraintIgnored(
            f"{self.base_url} ignored the JSON-schema constraint (canary replies: "
            f"{'; '.join(replies)}). Grammar 'on' would not be constrained, so the run is "
            "refused; use --grammar off or vendor, or a server version that applies it."
        )

    def preflight(self) -> dict[str, Any]:
        """Reachable, the model list, the chat template, the sampling, and the canary for
        "on"; raises ``BackendError`` (``TemplateMissing``, ``ConstraintIgnored``, …).
        Against replicas, the first one is proven."""
        with self.http.primary():
            return self._preflight_checks()

    def _preflight_checks(self) -> dict[str, Any]:
        models = list_models(self.http)
        info: dict[str, Any] = {"models": models, "server": self.flavor,
                                "chat_template": self.template_origin,
                                "sampling_sent": dict(self.sampling),
                                **model_listed(self.model, models, self.base_url)}
        defaults = server_defaults(self.http, self.root_url)
        if defaults:
            info["server_defaults"] = defaults
        self.canary()
        info["tools_reach_prompt"] = (
            "the harness renders the prompt: tools "
            + ("shown by the template" if self.prompt.native_tools else "injected"))
        if self.mode == "on":
            info["canary"] = f"passed ({self.mechanism()})"
        self._preflight = info
        return {**self.describe(), "checked": ["reachable", "models", "template", "sampling",
                                               *(["canary"] if self.mode == "on" else [])]}

    def complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelTurn:
        _ = self.flavor  # TemplateMissing before any rendering, when there is no template
        self.canary()
        started = time.perf_counter()
        prompt = self.prompt.build(messages, tools)
        schema = envelope.envelope_schema(tools) if self.mode == "on" else None
        text, info = self._request(prompt, schema, self._constraint_field, self.max_tokens)
        self.last_output = text
        content, calls = split_output(text)
        for index, call in enumerate(calls):
            call.call_id = f"call_{len(messages)}_{index}"
        turn = ModelTurn(content=content, calls=calls,
                         latency_s=time.perf_counter() - started, **info)
        return turn

    def mechanism(self) -> str:
        if self.mode == "off":
            return "none"
        if self._flavor == "llama-server":
            return f"{envelope.MECHANISM} (llama-server /completion json_schema)"
        where = {
            "structured_outputs": "/v1/completions structured_outputs.json",
            "grammar": "/v1/completions grammar (GBNF from the JSON schema)",
            "json_schema": "/v1/completions json_schema",
            "response_format": "/v1/completions response_format json_schema",
        }.get(self._constraint_field or "")
        if where:
            return f"{envelope.MECHANISM} ({where})"
        return f"{envelope.MECHANISM} (not yet verified by the canary)"

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "backend": "openai-compatible (raw completions)",
            "base_url": self.base_url,
            "model": self.model,
            "grammar": self.mode,
            "server": self._flavor or "unknown",
            "constraint": self.mechanism(),
            "chat_template": self.template_origin,
            "sampling": dict(self.sampling),
            "seed": self.sampling.get("seed"),
            "temperature": self.sampling.get("temperature"),
            "max_tokens": self.max_tokens,
        }
        if self.mode == "on":
            info["canary"] = self._canary or "not run"
        if self._preflight is not None:
            info["preflight"] = self._preflight
        if self.last_output is not None:  # the server answered: probing it is safe
            info.update(self.prompt.describe())
        return info

    def fork(self) -> RawCompletionBackend:
        forked: RawCompletionBackend = fork_http_backend(self)
        return forked

    def case_scope(self) -> Any:
        return self.http.case_replica()

    def close(self) -> None:
        if self.owns_http:
            self.http.close()


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) else None


def _is_path(template: str | os.PathLike[str]) -> bool:
    if isinstance(template, os.PathLike):
        return True
    return "{%" not in template and "{{" not in template  # no Jinja: a file name


def _is_canary(text: str) -> bool:
    try:
        return json.loads(text) == {"canary": CANARY_VALUE}
    except ValueError:
        return False
