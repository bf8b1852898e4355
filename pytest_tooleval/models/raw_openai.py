"""Grammar "on"/"off" against OpenAI-compatible servers through raw completions.

The harness renders the prompt (llama-server's ``/apply-template``, or a template rendered
locally) and parses the output, so "on" and "off" differ only in the constraint: llama-server
``/completion`` with ``json_schema``, else ``/v1/completions`` with the first field the canary
proves applied. Servers may ignore a constraint field silently (vLLM drops the old
``guided_*`` fields with HTTP 200), so an "on" run starts with a canary request whose only
schema-valid reply is obvious; a server that fails it for every field is refused.
"""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path
from typing import Any

from pytest_tooleval.models import grammar as envelope
from pytest_tooleval.models.base import (
    BackendError,
    BackendUnavailable,
    ConstraintIgnored,
    MalformedReply,
    Message,
    ModelTurn,
    RequestRefused,
    ServerError,
    TemplateMissing,
    stopped_short,
)
from pytest_tooleval.models.openai import ServerBackend
from pytest_tooleval.models.parsing import split_output
from pytest_tooleval.models.profiles import Profile
from pytest_tooleval.models.prompt import ChatTemplate, PromptBuilder
from pytest_tooleval.models.wire import completion_text, turn_fields
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
# Ways to send a JSON-schema constraint to /v1/completions, in the order the canary tries them.
OPENAI_FIELDS = {
    "structured_outputs": "/v1/completions structured_outputs.json",
    "grammar": "/v1/completions grammar (GBNF from the JSON schema)",
    "json_schema": "/v1/completions json_schema",
    "response_format": "/v1/completions response_format json_schema",
}


class RawCompletionBackend(ServerBackend):
    """A remote model driven with the harness's own prompt. ``flavor``: "llama-server"
    (``/apply-template`` + ``/completion``), "openai" (``/v1/completions``; needs the
    profile's ``template``), or None (llama-server when ``/apply-template`` answers)."""

    backend_name = "openai-compatible (raw completions)"

    def __init__(self, profile: Profile, grammar: str, *, flavor: str | None = None) -> None:
        super().__init__(profile, grammar)
        self._flavor = flavor
        template = profile.template
        self.template_origin = "server /apply-template"
        render = self._apply_template
        if template is not None:
            is_path = "{%" not in template and "{{" not in template  # no Jinja: a file name
            if is_path and not Path(template).is_file():
                raise TemplateMissing(
                    f"template = {template!r}: no such file (from {Path.cwd()}); give the "
                    "chat template's path, or its Jinja text")
            render = ChatTemplate(Path(template).read_text() if is_path else template).render
            self.template_origin = "template file" if is_path else "template text"
        self.prompt = PromptBuilder(render, thinking=profile.thinking)
        self._constraint_field: str | None = None
        self._canary: str | None = None  # "passed" once checked
        self.last_output: str | None = None  # the raw text of the latest turn

    @property
    def flavor(self) -> str:
        """The server kind, detected once: llama-server answers ``/apply-template``."""
        if self._flavor is None:
            try:
                self._apply_template([{"role": "user", "content": "ping"}], None, {})
                self._flavor = "llama-server"
            except (BackendUnavailable, ServerError):  # down, or erroring (still loading)
                raise
            except BackendError:  # no such endpoint, or no prompt in its reply
                self._flavor = "openai"
        if self._flavor == "openai" and self.profile.template is None:
            self.http.get("/models")  # its 404 too: the base_url is wrong, said with the fix
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
        reply = self.http.post(f"{self.root_url}/apply-template", body)
        prompt = reply.get("prompt") if isinstance(reply, dict) else None
        if not isinstance(prompt, str):
            raise TemplateMissing(f"{self.root_url}/apply-template returned no prompt")
        return prompt

    @staticmethod
    def _constraint(schema: dict[str, Any], field: str | None) -> dict[str, Any]:
        """The request fields that send ``schema`` as a constraint through ``field``."""
        if field in (None, "json_schema"):
            return {"json_schema": schema}
        if field == "structured_outputs":
            return {"structured_outputs": {"json": schema}}
        if field == "grammar":
            return {"grammar": envelope.schema_to_gbnf(schema)}
        return {"response_format": {"type": "json_schema",
                                    "json_schema": {"name": "tooleval", "schema": schema,
                                                    "strict": True}}}

    def _request(self, prompt: str, schema: dict[str, Any] | None, field: str | None,
                 max_tokens: int) -> tuple[str, dict[str, Any]]:
        """(generated text, {finish_reason, prompt_tokens, completion_tokens})."""
        sampling = {**self.sampling, "max_tokens": max_tokens}
        constraint = self._constraint(schema, field) if schema is not None else {}
        if self.flavor == "llama-server":
            url = f"{self.root_url}/completion"
            sampling["n_predict"] = sampling.pop("max_tokens")
            reply = self.http.post(url, {"prompt": prompt, **sampling, "cache_prompt": True,
                                         "stream": False, **constraint})
            if not isinstance(reply, dict) or not isinstance(reply.get("content"), str):
                raise MalformedReply(f"the reply of {url} has no text content: "
                                     f"{json.dumps(reply)[:300]}")
            evaluated, predicted = reply.get("tokens_evaluated"), reply.get("tokens_predicted")
            return reply["content"], {
                "finish_reason": "length" if reply.get("stop_type") == "limit" else "stop",
                "prompt_tokens": evaluated if isinstance(evaluated, int) else None,
                "completion_tokens": predicted if isinstance(predicted, int) else None,
            }
        url = f"{self.base_url}/completions"
        reply = self.http.post(url, {**self.request_body(sampling, prompt=prompt), **constraint})
        text, choice = completion_text(reply, url)
        return text, turn_fields(reply, choice)

    def canary(self) -> None:
        """Grammar "on" only: find the constraint field the server applies (run by
        ``preflight``, or by the first ``complete``); ``ConstraintIgnored`` if none."""
        if self.mode != "on" or self._canary is not None:
            return
        fields = [None] if self.flavor == "llama-server" else list(OPENAI_FIELDS)
        replies = []
        for field in fields:
            try:
                text, _ = self._request(CANARY_PROMPT, CANARY_SCHEMA, field, 32)
            except (RequestRefused, ServerError) as error:  # the field is not accepted
                replies.append(f"{field}: refused ({str(error)[:160]})")
            except envelope.GrammarError as error:
                replies.append(f"{field}: cannot be built here ({error})")
            except ImportError:
                replies.append(f"{field}: skipped (building GBNF needs llama-cpp-python)")
            else:
                if _is_canary(text):
                    self._constraint_field, self._canary = field, "passed"
                    return
                replies.append(f"{field or 'json_schema'}: {text[:80]!r}")
        raise ConstraintIgnored(
            f"{self.base_url} ignored the JSON-schema constraint (canary replies: "
            f"{'; '.join(replies)}). Grammar 'on' would not be constrained, so the run is "
            "refused; use --grammar off or vendor, or a server version that applies it."
        )

    def own_checks(self, info: dict[str, Any]) -> list[str]:
        """The chat template (``TemplateMissing``) and the canary for "on"."""
        info.update(server=self.flavor, chat_template=self.template_origin)
        self.canary()
        info["tools_reach_prompt"] = (
            "the harness renders the prompt: tools "
            + ("shown by the template" if self.prompt.native_tools else "injected"))
        if self.mode == "on":
            info["canary"] = f"passed ({self.mechanism()})"
        return ["template", "sampling", *(["canary"] if self.mode == "on" else [])]

    def complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelTurn:
        _ = self.flavor  # TemplateMissing before any rendering, when there is no template
        self.canary()
        started, retried = time.perf_counter(), self.http.retry_time()
        prompt = self.prompt.build(messages, tools)
        schema = envelope.envelope_schema(tools) if self.mode == "on" else None
        text, info = self._request(prompt, schema, self._constraint_field, self.profile.max_tokens)
        self.last_output = text
        content, calls = split_output(text, {tool.name for tool in tools})
        for index, call in enumerate(calls):
            call.call_id = f"call_{len(messages)}_{index}"
        return stopped_short(ModelTurn(content=content, calls=calls,
                                       latency_s=time.perf_counter() - started
                                       - (self.http.retry_time() - retried), **info),
                             self.profile.max_tokens, self.cut_fix())

    def mechanism(self) -> str:
        if self.mode == "off":
            return "none"
        if self._flavor == "llama-server":
            return f"{envelope.MECHANISM} (llama-server /completion json_schema)"
        where = OPENAI_FIELDS.get(self._constraint_field or "",
                                  "not yet verified by the canary")
        return f"{envelope.MECHANISM} ({where})"

    def describe(self) -> dict[str, Any]:
        info = super().describe()
        info.update({
            "server": self._flavor or "unknown",
            "chat_template": self.template_origin,
            "seed": self.sampling.get("seed"),
            "temperature": self.sampling.get("temperature"),
            "max_tokens": self.profile.max_tokens,
        })
        if self.mode == "on":
            info["canary"] = self._canary or "not run"
        if self.last_output is not None:  # the server answered: probing it is safe
            # unless it has gone since (its cases are ERRORs): the report is still written
            with contextlib.suppress(BackendUnavailable):
                info.update(self.prompt.describe())
        return info


def _is_canary(text: str) -> bool:
    try:
        return json.loads(text) == {"canary": CANARY_VALUE}
    except ValueError:
        return False
