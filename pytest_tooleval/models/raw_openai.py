"""Grammar "on"/"off" against OpenAI-compatible servers through raw completions.

The harness renders the prompt (llama-server's ``/apply-template``, or a template file
rendered locally) and parses the output, so "on" and "off" send the same prompt with the
same sampling and differ only in the constraint. llama-server: ``/completion`` with
``json_schema``; vLLM and others: ``/v1/completions`` with ``structured_outputs`` or
``response_format``. Servers may ignore a constraint field silently (vLLM drops the old
``guided_*`` fields with HTTP 200), so an "on" run starts with a canary request whose only
schema-valid reply is obvious; a server that fails it is refused, never reported as "on".
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import httpx

from pytest_tooleval.models import grammar as envelope
from pytest_tooleval.models.base import Backend, BackendUnavailable, Message, ModelTurn
from pytest_tooleval.models.parsing import split_output
from pytest_tooleval.models.prompt import ChatTemplate, PromptBuilder
from pytest_tooleval.tools.base import ToolSpec

CANARY_VALUE = "canary-7f3e"
CANARY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"canary": {"type": "string", "enum": [CANARY_VALUE]}},
    "required": ["canary"],
    "additionalProperties": False,
}
# Asks for something else: only a constrained server writes the canary value.
CANARY_PROMPT = "Name three fruits, separated by commas.\nFruits:"
RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
# Ways to send a JSON-schema constraint to /v1/completions, tried in order by the canary.
OPENAI_FIELDS = ("structured_outputs", "response_format")


class ServerUnreachable(BackendUnavailable):
    """No HTTP reply at all (refused connection, timeout), as opposed to an HTTP error."""


class ConstraintIgnored(BackendUnavailable):
    """The server answered the canary unconstrained: an "on" run would not be constrained."""


class RawCompletionBackend(Backend):
    """A remote model driven with the harness's own prompt. ``flavor``: "llama-server"
    (``/apply-template`` + ``/completion``), "openai" (``/v1/completions``; needs
    ``template``), or "auto" (llama-server when ``/apply-template`` answers)."""

    def __init__(
        self,
        base_url: str,
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
        thinking: bool = False,
        template_kwargs: dict[str, Any] | None = None,
        timeout: float = 120.0,
        retries: int = 2,
        cache_prompt: bool = True,
        api_key: str | None = None,
        client: httpx.Client | None = None,
        start_hint: str | None = None,
    ) -> None:
        if grammar not in ("on", "off"):
            raise ValueError(f"grammar must be 'on' or 'off' for raw completions: {grammar!r}")
        if flavor not in ("auto", "llama-server", "openai"):
            raise ValueError(f"flavor must be auto, llama-server or openai: {flavor!r}")
        self.mode = grammar
        self.start_hint = start_hint  # how to start the server, for the unreachable message
        self.base_url = base_url.rstrip("/")
        self.root_url = self.base_url.removesuffix("/v1")
        self.model = model
        self.seed, self.temperature, self.max_tokens = seed, temperature, max_tokens
        self.retries = retries
        # llama-server's prompt cache is fast but may make repeats differ in the last bits
        self.cache_prompt = cache_prompt
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = client or httpx.Client(
            timeout=httpx.Timeout(timeout, connect=min(10.0, timeout)), headers=headers
        )
        self._flavor = None if flavor == "auto" else flavor
        self.template_origin = "server /apply-template"
        if template is not None:
            source = Path(template).read_text() if _is_path(template) else str(template)
            self._template = ChatTemplate(source, bos_token=bos_token, eos_token=eos_token)
            self.template_origin = "template file" if _is_path(template) else "template text"
            render = self._template.render
        else:
            render = self._apply_template
        self.prompt = PromptBuilder(render, thinking=thinking, template_kwargs=template_kwargs,
                                    fatal=(ServerUnreachable,))
        self._template_given = template is not None
        self._constraint_field: str | None = None
        self._canary: str | None = None  # "passed" once checked
        self.last_output: str | None = None  # the raw text of the latest turn

    # -- transport -------------------------------------------------------------------------
    def _post(self, url: str, body: dict[str, Any]) -> dict[str, Any]:
        last = "no attempt"
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(0.5 * 2 ** (attempt - 1))
            try:
                response = self._client.post(url, json=body)
            except httpx.TimeoutException:
                last = "timed out"
                continue
            except httpx.TransportError as error:
                last = f"unreachable ({type(error).__name__}: {error})"
                continue
            if response.status_code in RETRY_STATUS:
                last = f"HTTP {response.status_code}: {response.text[:300]}"
                continue
            if response.status_code >= 400:
                detail = response.text[:300]
                raise BackendUnavailable(f"{url}: HTTP {response.status_code}: {detail}")
            try:
                return response.json()
            except ValueError as error:
                raise BackendUnavailable(f"{url}: the reply is not JSON") from error
        if last.startswith("HTTP"):
            raise BackendUnavailable(f"{url}: {last}")
        hint = f" Start one with: {self.start_hint}" if self.start_hint else ""
        raise ServerUnreachable(f"no model server at {url} ({last}).{hint}")

    @property
    def flavor(self) -> str:
        """The server kind, detected once: llama-server answers ``/apply-template``."""
        if self._flavor is None:
            try:
                reply = self._post(f"{self.root_url}/apply-template",
                                   {"messages": [{"role": "user", "content": "ping"}]})
                self._flavor = "llama-server" if isinstance(reply.get("prompt"), str) else "openai"
            except ServerUnreachable:
                raise
            except BackendUnavailable:  # an HTTP error: no such endpoint
                self._flavor = "openai"
        if self._flavor == "openai" and not self._template_given:
            raise ValueError(
                "raw completions on a server without /apply-template need the model's chat "
                "template: give a template file in the profile (template = \"path.jinja\")"
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
        prompt = self._post(f"{self.root_url}/apply-template", body).get("prompt")
        if not isinstance(prompt, str):
            raise BackendUnavailable("/apply-template returned no prompt")
        return prompt

    # -- generation ------------------------------------------------------------------------
    def _request(self, prompt: str, schema: dict[str, Any] | None, field: str | None,
                 max_tokens: int) -> tuple[str, dict[str, Any]]:
        """(generated text, {finish_reason, prompt_tokens, completion_tokens})."""
        if self.flavor == "llama-server":
            body: dict[str, Any] = {
                "prompt": prompt, "n_predict": max_tokens, "temperature": self.temperature,
                "seed": self.seed, "cache_prompt": self.cache_prompt, "stream": False,
            }
            if schema is not None:
                body["json_schema"] = schema
            reply = self._post(f"{self.root_url}/completion", body)
            return str(reply.get("content") or ""), {
                "finish_reason": "length" if reply.get("stop_type") == "limit" else "stop",
                "prompt_tokens": reply.get("tokens_evaluated"),
                "completion_tokens": reply.get("tokens_predicted"),
            }
        body = {
            "model": self.model or "default", "prompt": prompt, "max_tokens": max_tokens,
            "temperature": self.temperature, "seed": self.seed,
        }
        if schema is not None:
            if field == "structured_outputs":
                body["structured_outputs"] = {"json": schema}
            else:
                body["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": "tooleval", "schema": schema, "strict": True},
                }
        reply = self._post(f"{self.base_url}/completions", body)
        choice = (reply.get("choices") or [{}])[0]
        usage = reply.get("usage") or {}
        return str(choice.get("text") or ""), {
            "finish_reason": choice.get("finish_reason"),
            "prompt_tokens": usage.get("prompt_tokens"),
            "completion_tokens": usage.get("completion_tokens"),
        }

    def preflight(self) -> None:
        """Run the canary (grammar "on" only); raises ``ConstraintIgnored`` if the server
        does not apply the constraint. Called by the first ``complete`` if not before."""
        if self.mode != "on" or self._canary is not None:
            return
        fields = (None,) if self.flavor == "llama-server" else OPENAI_FIELDS
        replies = []
        for field in fields:
            text, _ = self._request(CANARY_PROMPT, CANARY_SCHEMA, field, 32)
            if _is_canary(text):
                self._constraint_field, self._canary = field, "passed"
                return
            replies.append(f"{field or 'json_schema'}: {text[:80]!r}")
        raise ConstraintIgnored(
            f"{self.base_url} ignored the JSON-schema constraint (canary replies: "
            f"{'; '.join(replies)}). Grammar 'on' would not be constrained, so the run is "
            "refused; use --grammar off or vendor, or a server version that applies it."
        )

    def complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelTurn:
        self.preflight()
        started = time.perf_counter()
        prompt = self.prompt.build(messages, tools)
        schema = envelope.envelope_schema(tools) if self.mode == "on" else None
        text, info = self._request(prompt, schema, self._constraint_field, self.max_tokens)
        self.last_output = text
        content, calls = split_output(text)
        for index, call in enumerate(calls):
            call.call_id = f"call_{len(messages)}_{index}"
        return ModelTurn(content=content, calls=calls, latency_s=time.perf_counter() - started,
                         **info)

    def mechanism(self) -> str:
        if self.mode == "off":
            return "none"
        if self._flavor == "llama-server":
            return f"{envelope.MECHANISM} (llama-server /completion json_schema)"
        if self._constraint_field == "structured_outputs":
            return f"{envelope.MECHANISM} (/v1/completions structured_outputs.json)"
        if self._constraint_field == "response_format":
            return f"{envelope.MECHANISM} (/v1/completions response_format json_schema)"
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
            "seed": self.seed,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self.mode == "on":
            info["canary"] = self._canary or "not run"
        if self.last_output is not None:  # the server answered: probing it is safe
            info.update(self.prompt.describe())
        return info

    def close(self) -> None:
        self._client.close()


def _is_path(template: str | os.PathLike[str]) -> bool:
    if isinstance(template, os.PathLike):
        return True
    return "{%" not in template and "{{" not in template and Path(template).is_file()


def _is_canary(text: str) -> bool:
    try:
        return json.loads(text) == {"canary": CANARY_VALUE}
    except ValueError:
        return False
