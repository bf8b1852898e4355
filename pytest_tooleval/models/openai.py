"""The OpenAI-compatible backends' shared part, and the server's own tool calling ("vendor").

Calls the server's parser left in the text content are reported as leaks, not as "no call".
The preflight proves that the tools reach the model's prompt: a chat template without tool
support drops them silently, and every case would look like a model that never calls one.
"""

from __future__ import annotations

import copy
import os
import time
from typing import Any, Self

from pytest_tooleval.models.base import (
    Backend,
    BackendConfigError,
    BackendError,
    ConstraintIgnored,
    Message,
    ModelTurn,
    RequestRefused,
    ServerStall,
    ServerTimeout,
    ServerUnreachable,
    ToolsNotShown,
    stopped_short,
)
from pytest_tooleval.models.http import HttpClient
from pytest_tooleval.models.parsing import find_leaked_calls, strip_thinking
from pytest_tooleval.models.profiles import Profile
from pytest_tooleval.models.wire import (
    chat_message,
    chat_sampling,
    turn_fields,
    usage_of,
    vendor_messages,
)
from pytest_tooleval.tools.base import ToolSpec

SENTINEL_NAME = "tooleval_sentinel_lookup"
SENTINEL_TOOL = ToolSpec(
    SENTINEL_NAME,
    "Looks up the sentinel record that proves this tool definition reached the prompt. "
    "It takes the record's identifier and an optional note and returns the record.",
    {
        "type": "object",
        "properties": {
            "record_identifier": {"type": "string", "description": "The record to look up."},
            "note": {"type": "string", "description": "Anything worth keeping with it."},
        },
        "required": ["record_identifier"],
    },
    "sentinel",
)
# A tool definition of this size takes far more than this many prompt tokens in any
# template that shows it (about 50 with its schema alone); fewer means it was dropped.
SENTINEL_MIN_TOKENS = 24
# With a system message, as every case has: some templates (llama-cpp-python's
# chatml-function-calling) show the tools only inside the system turn.
PROBE_MESSAGES: list[Message] = [
    {"role": "system", "content": "You are a helpful assistant with access to tools."},
    {"role": "user", "content": "Reply with the word OK."},
]
#: The most one probe request may take, whatever the profile's timeout: a probe asks for
#: one token, so a reply later than this is a server that does not stop.
PROBE_TIMEOUT_S = 60.0
_DEFAULT_KEYS = ("temperature", "top_p", "top_k", "min_p", "repeat_penalty", "seed", "n_predict")


def api_key_of(profile: Profile) -> str | None:
    """The key in the variable ``api_key_env`` names; a warning when it names one not set."""
    if not profile.api_key_env:
        return None
    # Spaces or a newline around a key cannot go in an HTTP header.
    key = os.environ.get(profile.api_key_env, "").strip()
    if not key:
        profile.warn(
            f"tooleval: profile {profile.name!r}: api_key_env = {profile.api_key_env!r} names "
            "an environment variable that is not set (or blank), so requests carry no key. "
            f"Set it (export {profile.api_key_env}=...) or remove api_key_env from the profile.")
    elif not (key.isascii() and key.isprintable()):  # an error would quote it in the report
        raise BackendConfigError(
            f"profile {profile.name!r}: the variable api_key_env = {profile.api_key_env!r} "
            "names holds a character an HTTP header cannot carry (a pasted quote, a control "
            "character); set it to the key alone")
    return key or None


def server_props(http: HttpClient, root_url: str) -> dict[str, Any]:
    """llama-server's ``/props`` (its sampling defaults, its slots); {} from other servers."""
    try:
        props = http.get(f"{root_url}/props", timeout=min(http.timeout, 10.0), retries=0)
    except BackendError:
        return {}
    return props if isinstance(props, dict) else {}


def server_defaults(props: dict[str, Any]) -> dict[str, Any]:
    """The server's own sampling defaults where it publishes them."""
    settings = props.get("default_generation_settings")
    if isinstance(settings, dict) and isinstance(settings.get("params"), dict):
        settings = settings["params"]
    if not isinstance(settings, dict):
        return {}
    return {key: settings[key] for key in _DEFAULT_KEYS if key in settings}


def list_models(http: HttpClient) -> list[str] | str:
    """The model ids the server lists, or why it lists none. Unreachable: raised."""
    try:
        body = http.get("/models", timeout=min(http.timeout, 30.0))
    except ServerUnreachable:
        raise
    except BackendError as error:
        return f"not listed ({error})"
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list):
        return "not listed (GET /models gave no data list)"
    return [str(m.get("id")) for m in data if isinstance(m, dict) and m.get("id") is not None]


def model_listed(profile: Profile, models: list[str] | str, base_url: str) -> dict[str, Any]:
    """``model_listed`` for the preflight's record, warning when the profile's id is not listed."""
    model = profile.model
    if not isinstance(models, list) or model in (None, "default"):
        return {}
    listed = model in models or f"{model}:latest" in models  # Ollama's implicit tag
    if not listed:
        profile.warn(
            f"tooleval: the server at {base_url} does not list the profile's model {model!r} "
            f"(GET /models lists: {served(models)}); it may answer with another model or "
            "refuse. Set the profile's model to one of those.")
    return {"model_listed": listed}


def served(models: list[str]) -> str:
    """The model ids a server lists, the first ten."""
    shown = ", ".join(models[:10]) + (f", … ({len(models)} in all)" if len(models) > 10 else "")
    return shown or "none"


class ServerBackend(Backend):
    """A model behind an OpenAI-compatible server, reached through one ``HttpClient`` that
    forks share (only the original closes it)."""

    backend_name = "openai-compatible"
    #: xdist workers on this machine: each sends ``concurrency`` requests at once.
    workers = 1

    def __init__(self, profile: Profile, grammar: str = "vendor", *,
                 backoff: float = 0.5) -> None:
        if not profile.base_url:
            raise BackendConfigError(f"profile {profile.name!r} has no base_url")
        self.profile = profile
        self.mode = grammar
        self.http = HttpClient(
            profile.base_urls, timeout=profile.timeout, retries=profile.retries,
            backoff=backoff, api_key=api_key_of(profile), start_hint=profile.start_hint,
            connections=profile.concurrency,
        )
        self.base_url = self.http.base_url
        self.root_url = self.base_url.removesuffix("/v1")
        self.owns_http = True
        self.sampling = profile.sampling()
        self.model = profile.model or "default"  # the preflight names a server's only model
        self._preflight: dict[str, Any] | None = None

    @classmethod
    def from_profile(cls, profile: Profile, grammar: str, *, workers: int = 1) -> Self:
        backend = cls(profile, grammar)
        backend.workers = workers
        return backend

    def reseed(self, seed: int) -> None:
        if "seed" in self.sampling:
            self.sampling["seed"] = seed

    def current_seed(self) -> int | None:
        return int(self.sampling["seed"]) if "seed" in self.sampling else None

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "backend": self.backend_name,
            "base_url": self.base_url,
            **({"replicas": self.http.base_urls} if len(self.http.base_urls) > 1 else {}),
            "model": self.profile.model,
            "grammar": self.mode,
            "constraint": self.mechanism(),
            "sampling": dict(self.sampling),
        }
        if self._preflight is not None:
            info["preflight"] = self._preflight
        return info

    def preflight(self) -> dict[str, Any]:
        """Reachable, the model list, the sampling, then this backend's own checks; against
        replicas, the first one is proven."""
        with self.http.primary():
            models = list_models(self.http)
            if self.model == "default" and isinstance(models, list) and len(models) == 1:
                self.model = models[0]  # vLLM answers "default" with HTTP 404
            info: dict[str, Any] = {"models": models,
                                    **model_listed(self.profile, models, self.base_url),
                                    "sampling_sent": dict(self.sampling)}
            props = server_props(self.http, self.root_url)
            if defaults := server_defaults(props):
                info["server_defaults"] = defaults
            slots, concurrency = props.get("total_slots"), self.profile.concurrency
            wanted = concurrency * self.workers
            if type(slots) is int and 0 < slots < wanted and len(self.http.base_urls) == 1:
                info["server_slots"] = slots  # the rest queue there, on their own clock
                self.profile.warn(
                    f"tooleval: profile {self.profile.name!r} sends {wanted} requests at once "
                    + (f"(-n {self.workers} × concurrency {concurrency}) " if self.workers > 1
                       else "")
                    + f"to a server with {slots} slot(s) ({self.root_url}/props): the others "
                    "wait there on their timeout's clock, and time out as ERROR on a long "
                    "generation; "
                    + (f"set concurrency = {slots}" if self.workers == 1 else
                       f"keep -n × concurrency at most {slots}")
                    + f", or start llama-server with --parallel {wanted}")
            try:
                checked = self.own_checks(info)
            except (RequestRefused, ConstraintIgnored) as error:  # vLLM: 404 to such a model
                if (info.get("model_listed") is not False or not isinstance(models, list)
                        or "HTTP 404" not in str(error)):  # it took the name: no hint
                    raise
                raise type(error)(
                    f"{error} The server lists {served(models)} (GET /models), not "
                    f"{self.profile.model!r}: set the profile's model to one of those.") from None
        self._preflight = info
        return {**self.describe(), "checked": ["reachable", "models", *checked]}

    def own_checks(self, info: dict[str, Any]) -> list[str]:
        """This backend's part of the preflight: adds to ``info``, returns what it checked."""
        raise NotImplementedError

    def mechanism(self) -> str:
        """What constrains the output ("none" when nothing does)."""
        raise NotImplementedError

    def request_body(self, sampling: dict[str, Any], **fields: Any) -> dict[str, Any]:
        """An OpenAI-style request: the model, unstreamed, with ``sampling``."""
        return {"model": self.model, **fields, "stream": False,
                **chat_sampling(sampling)}

    def fork(self) -> Self:
        """A shallow copy with its own sampling (reseeded per case), sharing the client."""
        clone = copy.copy(self)
        clone.sampling = dict(self.sampling)
        clone.owns_http = False
        return clone

    def case_scope(self) -> Any:
        return self.http.case_replica()

    def cut_fix(self) -> str:
        """What to do about a reply the server cut below max_tokens."""
        return (f"the conversation filled the context of the server at {self.root_url} "
                "(llama-server -c, shared by its --parallel slots), or it caps replies lower "
                "(-n); raise that, or lower the profile's max_tokens")

    def close(self) -> None:
        if self.owns_http:
            self.http.close()


class OpenAIChatBackend(ServerBackend):
    """The server's own tool calling (``/v1/chat/completions`` with ``tools``)."""

    def mechanism(self) -> str:
        return "server tool calling (/v1/chat/completions with tools)"

    def own_checks(self, info: dict[str, Any]) -> list[str]:
        """The tools sentinel."""
        info.update(self.tools_reach_prompt())
        return ["sampling", "tools_reach_prompt"]

    def _payload(self, messages: list[Message], tools: list[ToolSpec],
                 max_tokens: int | None = None) -> dict[str, Any]:
        sampling = dict(self.sampling)
        if max_tokens is not None:
            sampling["max_tokens"] = max_tokens
        payload = self.request_body(sampling, messages=vendor_messages(messages))
        if tools:
            payload["tools"] = [spec.openai_schema() for spec in tools]
            payload["tool_choice"] = "auto"
        if not self.profile.thinking:
            payload["chat_template_kwargs"] = {"enable_thinking": False}
        return payload

    def complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelTurn:
        started, retried = time.perf_counter(), self.http.retry_time()
        body = self.http.post("/chat/completions", self._payload(messages, tools))
        latency = time.perf_counter() - started - (self.http.retry_time() - retried)
        content, calls, choice = chat_message(body, f"{self.base_url}/chat/completions")
        content = strip_thinking(content)  # reasoning is not the answer, as in on/off
        return stopped_short(ModelTurn(
            content=content, calls=calls, latency_s=latency,
            leaked_calls=[] if calls else find_leaked_calls(content, {t.name for t in tools}),
            **turn_fields(body, choice)), self.profile.max_tokens, self.cut_fix())

    def tools_reach_prompt(self) -> dict[str, Any]:
        """Prompt tokens of one tiny request without tools and one with the sentinel tool:
        a template that shows tools makes the second far longer."""
        counts = []
        for tools in ([], [SENTINEL_TOOL]):
            body = self._probe(tools)
            chat_message(body, f"{self.base_url}/chat/completions")  # malformed: said so
            counts.append(usage_of(body)[0])
        without, with_tool = counts
        if without is None or with_tool is None:
            return {"tools_reach_prompt": "unverified: the server reports no prompt tokens"}
        added = with_tool - without
        if added < SENTINEL_MIN_TOKENS:
            raise ToolsNotShown(
                f"the server at {self.base_url} drops the tools: a request with one tool took "
                f"{with_tool} prompt tokens, without it {without} (+{added}). Its chat template "
                "does not show tools to the model, so every case would be scored as a model "
                "that never calls one; the run is refused. Start the server with a template "
                "that supports tools (llama-server --jinja, llama-cpp-python --chat_format "
                "chatml-function-calling, vLLM --enable-auto-tool-choice), or use --grammar "
                "on/off, where the harness renders the prompt itself."
            )
        return {"tools_reach_prompt": f"verified (+{added} prompt tokens with a sentinel tool)"}

    def _probe(self, tools: list[ToolSpec]) -> Any:
        """One probe request for one token, on its own short wall clock. With a tool, the
        choice names it (llama-cpp-python's chatml-function-calling ignores ``max_tokens`` on
        ``"auto"``); a server that refuses a named choice is asked again with ``"auto"``."""
        payload = self._payload(PROBE_MESSAGES, tools, max_tokens=1)
        timeout = min(self.http.timeout, PROBE_TIMEOUT_S)
        try:
            if tools:
                named = {"type": "function", "function": {"name": tools[0].name}}
                try:
                    return self.http.post("/chat/completions",
                                          {**payload, "tool_choice": named}, timeout=timeout)
                except RequestRefused:
                    pass
            return self.http.post("/chat/completions", payload, timeout=timeout)
        except ServerTimeout as error:
            probe = f"a one-token probe{' (with one tool)' if tools else ''}"
            what = (f"sent nothing for {timeout:g} s in reply to {probe}"
                    if isinstance(error, ServerStall)
                    else f"did not finish its reply to {probe} within {timeout:g} s")
            raise type(error)(
                f"preflight: the server at {self.base_url} {what}: it does not "
                "stop generating at max_tokens, or it is far too slow for this benchmark. "
                "Check the server's log; with llama-cpp-python use --chat_format "
                "chatml-function-calling and a current version") from None
