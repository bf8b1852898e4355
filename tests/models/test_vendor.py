"""Vendor mode against the loopback fake: messages every server accepts, the pinned
sampling on the wire and in describe(), the preflight (models, server defaults, the tools
sentinel), and the backend registry."""

from __future__ import annotations

import time
import warnings
from typing import Any

import pytest

from pytest_tooleval.models import openai as openai_backend
from pytest_tooleval.models.base import (
    BackendConfigError,
    BackendError,
    ServerTimeout,
    ServerUnreachable,
    ToolsNotShown,
)
from pytest_tooleval.models.openai import SENTINEL_NAME, OpenAIChatBackend
from pytest_tooleval.models.profiles import SAMPLING_FIELDS, Profile
from pytest_tooleval.models.raw_openai import RawCompletionBackend
from pytest_tooleval.models.registry import make_backend
from pytest_tooleval.models.wire import vendor_messages
from pytest_tooleval.tools.base import ToolSpec
from tests.support.fake_openai import FakeOpenAI, Rule, answer, call

QUESTION = [{"role": "user", "content": "What is the weather in Paris?"}]
AFTER_A_CALL: list[dict[str, Any]] = [
    {"role": "system", "content": "s"},
    *QUESTION,
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
]


def profile(url: str, **fields: Any) -> Profile:
    return Profile(name="t", base_url=url, model="m", retries=0, **fields)


def chat_bodies(fake: FakeOpenAI) -> list[dict[str, Any]]:
    return [b for p, b in fake.requests if p == "/v1/chat/completions"]


def test_an_assistant_turn_with_calls_is_sent_with_string_content(tools: list[ToolSpec]) -> None:
    # strict_content: the fake answers a null content with HTTP 500, as llama.cpp servers do
    with FakeOpenAI([Rule("weather", [call("get_weather"), answer("Sunny.")])],
                    strict_content=True) as fake:
        turn = OpenAIChatBackend(profile(fake.base_url)).complete(AFTER_A_CALL, tools)
        assert turn.content == "Sunny."
        sent = chat_bodies(fake)[0]["messages"]
    assistant = sent[2]
    assert assistant["content"] == ""
    assert assistant["tool_calls"][0]["function"]["arguments"] == '{"city": "Paris"}'
    assert assistant["tool_calls"][0]["type"] == "function"
    assert sent[3] == {"role": "tool", "tool_call_id": "c1", "content": "sunny"}


@pytest.mark.parametrize("arguments", ['{"city": "Paris"', "[1]", "Paris"])
def test_a_malformed_call_is_the_models_and_the_case_goes_on(arguments: str) -> None:
    """llama-server and vLLM parse the history's arguments and answer HTTP 500 to broken
    ones (the fake too, under strict_content): sent back as they were, the model's malformed
    call became an ERROR of the machine instead of a malformed attempt and a next round."""
    from tests.engine.test_loop import ref, session_with
    from tests.support.fake_openai import raw_call

    rules = [Rule("", [raw_call("get_weather", arguments), answer("It is 17.4 C.")])]
    with FakeOpenAI(rules, strict_content=True) as fake:
        run = session_with(OpenAIChatBackend(profile(fake.base_url))).run(ref())
        sent = chat_bodies(fake)[1]["messages"]
    assert run.error is None and run.transcripts[0].answer == "It is 17.4 C."
    assert [a.valid for a in run.transcripts[0].attempts] == [False]
    assert sent[-2]["tool_calls"][0]["function"]["arguments"] == "{}"


def test_a_reasoning_block_in_the_content_is_neither_answer_nor_call(
        tools: list[ToolSpec]) -> None:
    """A server that leaves ``<think>`` in the content (vLLM without a reasoning parser,
    llama-server --reasoning-format none): the fact only the reasoning states is not in the
    answer, and a call it only considers is no leaked attempt, as in grammar on/off."""
    thought = ('<think>The tool said 17.4 C. Maybe <tool_call>{"name": "get_weather", '
               '"arguments": {"city": "Izmir"}}</tool_call>? No.</think>I do not know.')
    with FakeOpenAI([Rule("weather", [answer(thought)])]) as fake:
        turn = OpenAIChatBackend(profile(fake.base_url)).complete(QUESTION, tools)
    assert (turn.content, turn.leaked_calls) == ("I do not know.", [])


def test_vendor_messages_normalise_every_shape() -> None:
    out = vendor_messages([
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
        {"role": "assistant", "content": "x", "tool_calls": []},
        {"role": "assistant", "tool_calls": [{"function": {"name": "f"}}]},
        {"role": "tool", "content": None},
    ])
    assert out[0] == {"role": "user", "content": "ab"}  # Ollama takes only a string
    assert out[1] == {"role": "assistant", "content": "x"}  # an empty list is left out
    assert out[2]["content"] == "" and out[2]["tool_calls"][0]["id"]
    assert out[2]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert out[3]["content"] == "" and out[3]["tool_call_id"]


def test_the_pinned_sampling_is_sent_and_described() -> None:
    with FakeOpenAI() as fake:
        backend = OpenAIChatBackend(profile(fake.base_url, top_k=20, repeat_penalty=1.05))
        backend.complete(QUESTION, [])
        sent = chat_bodies(fake)[0]
    assert {k: sent[k] for k in ("temperature", "top_p", "top_k", "min_p", "repeat_penalty",
                                 "seed", "max_tokens")} == {
        "temperature": 0.0, "top_p": 0.95, "top_k": 20, "min_p": 0.05, "repeat_penalty": 1.05,
        "seed": 1234, "max_tokens": 512}
    assert sent["repetition_penalty"] == 1.05  # vLLM's name for it
    assert backend.describe()["sampling"] == {**backend.sampling}
    assert set(backend.describe()["sampling"]) == set(SAMPLING_FIELDS)


def test_a_sampling_field_set_to_server_is_not_sent() -> None:
    with FakeOpenAI() as fake:
        OpenAIChatBackend(profile(fake.base_url, top_k="server", min_p="server",
                                  repeat_penalty="server")).complete(QUESTION, [])
        sent = chat_bodies(fake)[0]
    assert not {"top_k", "min_p", "repeat_penalty", "repetition_penalty"} & set(sent)


def test_raw_completion_sends_the_same_sampling(tools: list[ToolSpec]) -> None:
    with FakeOpenAI() as fake:
        p = profile(fake.base_url, top_k=7, max_tokens=99)
        RawCompletionBackend.from_profile(p, "off").complete(QUESTION, tools)
        (sent,) = [b for path, b in fake.requests if path == "/completion"]
    assert sent["n_predict"] == 99 and sent["top_k"] == 7 and sent["repeat_penalty"] == 1.0
    assert sent["min_p"] == 0.05 and sent["seed"] == 1234 and "max_tokens" not in sent


def test_preflight_proves_the_tools_reach_the_prompt() -> None:
    props = {"default_generation_settings": {"params": {"repeat_penalty": 1.1, "top_k": 40}}}
    with FakeOpenAI(props=props) as fake:
        backend = OpenAIChatBackend(profile(fake.base_url))
        info = backend.preflight()
        probes = chat_bodies(fake)
    assert [len(b.get("tools", [])) for b in probes] == [0, 1]
    assert probes[1]["tools"][0]["function"]["name"] == SENTINEL_NAME
    assert all(b["max_tokens"] == 1 for b in probes)
    checked = info["preflight"]
    assert checked["tools_reach_prompt"].startswith("verified (+")
    assert checked["models"] == ["fake-model"] and checked["model_listed"] is False
    assert checked["server_defaults"] == {"repeat_penalty": 1.1, "top_k": 40}
    assert checked["sampling_sent"]["repeat_penalty"] == 1.0
    assert backend.describe()["preflight"] == checked  # recorded in the report
    assert "server_slots" not in checked  # /props names no slots: nothing said


def test_concurrency_above_the_server_slots_is_named_with_the_fix() -> None:
    """llama-server with 2 slots, concurrency 4: two requests queued there on their own
    clock, timing out as ERROR on a long generation, and nothing said why."""
    with FakeOpenAI(props={"total_slots": 2}) as fake:
        backend = OpenAIChatBackend(profile(fake.base_url, concurrency=4))
        with pytest.warns(UserWarning, match=r"sends 4 requests at once to a server with 2 "
                          r"slot\(s\).*set concurrency = 2, or start llama-server with "
                          r"--parallel 4"):
            info = backend.preflight()
    assert info["preflight"]["server_slots"] == 2
    with FakeOpenAI(props={"total_slots": 4}) as fake, warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        info = OpenAIChatBackend(profile(fake.base_url, concurrency=4)).preflight()
    assert "server_slots" not in info["preflight"]
    assert not [w for w in said if "slot" in str(w.message)]


def test_xdist_workers_above_the_server_slots_are_named_with_the_fix() -> None:
    """-n 2 with concurrency 1 against llama-server with one slot: two requests at once,
    one queued on its own clock (a preflight probe stalled as 'does not stop generating'),
    and nothing said, as each worker compared its own concurrency alone."""
    with FakeOpenAI(props={"total_slots": 1}) as fake:
        backend = OpenAIChatBackend.from_profile(profile(fake.base_url), "vendor", workers=2)
        with pytest.warns(UserWarning, match=r"sends 2 requests at once \(-n 2 × concurrency "
                          r"1\) to a server with 1 slot\(s\).*keep -n × concurrency at most "
                          r"1, or start llama-server with --parallel 2"):
            info = backend.preflight()
    assert info["preflight"]["server_slots"] == 1


def test_the_tools_probe_names_its_tool_and_ends_where_auto_would_not(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """llama-cpp-python's chatml-function-calling ignores max_tokens on tool_choice "auto"
    (SmolLM2 wrote an argument until the context was full, 300 s): the probe names the
    tool, and a server that refuses that is asked with "auto" on a short clock of its own."""
    with FakeOpenAI(auto_tools_hang=30) as fake:
        info = OpenAIChatBackend(profile(fake.base_url)).preflight()
        probes = chat_bodies(fake)
    assert probes[1]["tool_choice"] == {"type": "function",
                                        "function": {"name": SENTINEL_NAME}}
    assert info["preflight"]["tools_reach_prompt"].startswith("verified (+")
    with FakeOpenAI(refuses_named_choice=True) as fake:
        info = OpenAIChatBackend(profile(fake.base_url)).preflight()
        assert [b.get("tool_choice") for b in chat_bodies(fake)][1:] == [
            {"type": "function", "function": {"name": SENTINEL_NAME}}, "auto"]
    assert info["preflight"]["tools_reach_prompt"].startswith("verified (+")
    monkeypatch.setattr(openai_backend, "PROBE_TIMEOUT_S", 1.0)
    with FakeOpenAI(refuses_named_choice=True, auto_tools_hang=30) as fake:
        backend = OpenAIChatBackend(profile(fake.base_url, timeout=300))
        started = time.monotonic()
        with pytest.raises(ServerTimeout, match="sent nothing for 1 s in reply to a one-token "
                           r"probe \(with one tool\)") as caught:
            backend.preflight()
        assert caught.value.kind == "stall"
        assert time.monotonic() - started < 10


def test_preflight_refuses_a_server_that_drops_the_tools() -> None:
    with FakeOpenAI(drops_tools=True) as fake, \
            pytest.raises(ToolsNotShown, match="drops the tools") as caught:
        OpenAIChatBackend(profile(fake.base_url)).preflight()
    assert caught.value.kind == "tools_not_shown"
    assert "chatml-function-calling" in str(caught.value)  # says how to fix it


def test_preflight_of_a_dead_server_is_one_unreachable_error() -> None:
    backend = OpenAIChatBackend(profile("http://127.0.0.1:9/v1", start_hint="start it"))
    with pytest.raises(ServerUnreachable, match="start it"):
        backend.preflight()


def test_preflight_without_usage_says_unverified() -> None:
    no_usage = {"choices": [{"message": {"content": "OK"}, "finish_reason": "stop"}]}
    from tests.support.fake_openai import body

    with FakeOpenAI([Rule("", [body(no_usage)])]) as fake:
        info = OpenAIChatBackend(profile(fake.base_url)).preflight()
    assert info["preflight"]["tools_reach_prompt"].startswith("unverified")


# ------------------------------------------------------------------------------- registry


def test_the_registry_builds_each_kind_and_mode() -> None:
    url = "http://127.0.0.1:9/v1"
    assert isinstance(make_backend(profile(url), "vendor"), OpenAIChatBackend)
    for mode in ("on", "off"):
        built = make_backend(profile(url), mode)
        assert isinstance(built, RawCompletionBackend) and built.mode == mode


def test_the_embedded_model_has_no_vendor_mode() -> None:
    with pytest.raises(BackendConfigError, match="use --grammar on or off") as caught:
        make_backend(Profile(name="e", kind="llama", gguf="default"), "vendor")
    assert isinstance(caught.value, BackendError)


def test_wiring_uses_the_registry() -> None:
    from pytest_tooleval.wiring import make_backend as wired

    assert isinstance(wired(profile("http://127.0.0.1:9/v1"), "vendor"), OpenAIChatBackend)


def test_servers_without_apply_template_default_to_vendor(tmp_path) -> None:
    from pytest_tooleval.models.profiles import resolve_profile

    assert resolve_profile("vllm", {}, tmp_path).grammar == "vendor"
    assert resolve_profile("ollama:qwen3:4b", {}, tmp_path).grammar == "vendor"
    assert resolve_profile("llama-server", {}, tmp_path).grammar is None  # "on" by default


def test_the_embedded_backend_refuses_sampling_it_cannot_honour() -> None:
    with pytest.raises(BackendConfigError, match=r"repeat_penalty 1\.0"):
        make_backend(Profile(name="e", kind="llama", gguf="default", repeat_penalty=1.1), "on")
