"""The OpenAI-compatible backend over httpx: the server's own tool calling ("vendor" mode).

Retries with backoff on connection errors, 429 and 5xx; a server that stays unreachable
raises ``BackendUnavailable`` so the case is an ERROR, not a model failure. Calls the
server's parser left in the text content are reported as leaks, not as "no call".
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import httpx

from pytest_tooleval.models.base import Backend, BackendUnavailable, Message, ModelTurn, RawCall
from pytest_tooleval.models.parsing import find_leaked_calls
from pytest_tooleval.models.profiles import Profile
from pytest_tooleval.tools.base import ToolSpec

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class OpenAIChatBackend(Backend):
    mode = "vendor"

    def __init__(self, profile: Profile, *, backoff: float = 0.5) -> None:
        if not profile.base_url:
            raise ValueError("an OpenAI-compatible profile needs base_url")
        self.profile = profile
        self.base_url = profile.base_url.rstrip("/")
        self.backoff = backoff
        headers = {"Content-Type": "application/json"}
        if profile.api_key_env:
            key = os.environ.get(profile.api_key_env)
            if key:
                headers["Authorization"] = f"Bearer {key}"
        self._client = httpx.Client(
            timeout=httpx.Timeout(profile.timeout, connect=min(10.0, profile.timeout)),
            headers=headers,
        )
        self._server_info: dict[str, Any] | None = None

    def describe(self) -> dict[str, Any]:
        return {
            "backend": "openai-compatible",
            "base_url": self.base_url,
            "model": self.profile.model,
            "grammar": "vendor",
            "mechanism": "server tool calling (/v1/chat/completions with tools)",
            "server": self._server_info or {},
        }

    def _payload(self, messages: list[Message], tools: list[ToolSpec]) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "model": self.profile.model or "default",
            "messages": messages,
            "temperature": self.profile.temperature,
            "seed": self.profile.seed,
            "max_tokens": self.profile.max_tokens,
        }
        if tools:
            payload["tools"] = [spec.openai_schema() for spec in tools]
            payload["tool_choice"] = "auto"
        if not self.profile.thinking:
            payload["chat_template_kwargs"] = {"enable_thinking": False}
        return payload

    def post(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        """POST with retries; returns the decoded JSON or raises BackendUnavailable."""
        url = f"{self.base_url}{path}"
        last = "no attempt made"
        reached = False  # the server answered at least once, but never usefully
        for attempt in range(self.profile.retries + 1):
            if attempt:
                time.sleep(self.backoff * (2 ** (attempt - 1)))
            try:
                response = self._client.post(url, json=payload)
            except httpx.TimeoutException:
                last = f"no reply within {self.profile.timeout:g} s"
                continue
            except httpx.TransportError as exc:
                last = f"{type(exc).__name__}: {exc}"
                continue
            reached = True
            if response.status_code in RETRY_STATUS:
                last = f"HTTP {response.status_code}: {response.text[:200]}"
                retry_after = response.headers.get("retry-after")
                if retry_after and retry_after.isdigit():
                    time.sleep(min(float(retry_after), 30.0))
                continue
            if response.status_code >= 400:
                raise BackendUnavailable(
                    f"{url} answered HTTP {response.status_code}: {response.text[:300]}"
                )
            try:
                return dict(response.json())
            except (json.JSONDecodeError, ValueError):
                last = f"the reply is not JSON: {response.text[:200]!r}"
                continue
        attempts = f"after {self.profile.retries + 1} attempts"
        if reached:
            raise BackendUnavailable(
                f"the model server at {self.base_url} kept failing ({last}, {attempts})."
            )
        hint = f" Start one with: {self.profile.start_hint}" if self.profile.start_hint else ""
        raise BackendUnavailable(f"no model server at {self.base_url} ({last}, {attempts}).{hint}")

    def complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelTurn:
        started = time.perf_counter()
        data = self.post("/chat/completions", self._payload(messages, tools))
        latency = time.perf_counter() - started
        try:
            choice = data["choices"][0]
            message = choice.get("message") or {}
        except (KeyError, IndexError, TypeError):
            raise BackendUnavailable(
                f"{self.base_url}/chat/completions returned no choices: {str(data)[:300]}"
            ) from None
        content = message.get("content") or ""
        calls = []
        for raw in message.get("tool_calls") or []:
            function = raw.get("function") or {}
            arguments = function.get("arguments")
            if isinstance(arguments, dict):
                arguments = json.dumps(arguments, ensure_ascii=False)
            calls.append(
                RawCall(
                    name=function.get("name"),
                    arguments=arguments,
                    call_id=raw.get("id"),
                    raw=json.dumps(raw, ensure_ascii=False),
                )
            )
        leaked = [] if calls else find_leaked_calls(content, {t.name for t in tools})
        usage = data.get("usage") or {}
        return ModelTurn(
            content=content,
            calls=calls,
            leaked_calls=leaked,
            latency_s=latency,
            prompt_tokens=usage.get("prompt_tokens"),
            completion_tokens=usage.get("completion_tokens"),
            finish_reason=choice.get("finish_reason"),
        )

    def close(self) -> None:
        self._client.close()
