"""The embedded backend on the default model (SmolLM2-135M-Instruct): it loads with weight
buffers safe for this CPU (and the choice reaches llama.cpp), a constrained step is
parseable and schema-valid, the same seed repeats in any order and with prefix reuse on or
off, a killed model process is an error and the next call gets a fresh one, thinking
reaches the template, and SmolLM2's tool-dropping template gets the tool block injected."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from pytest_tooleval.models import llama as llama_module
from pytest_tooleval.models import llama_cpu
from pytest_tooleval.models.grammar import envelope_schema
from pytest_tooleval.models.llama import LlamaBackend, LocalModelMissing
from pytest_tooleval.models.model_process import ModelProcessDied
from pytest_tooleval.models.prompt import CALL_FORMAT, tool_block
from pytest_tooleval.tools.base import ToolSpec
from tests.models.templates import QWEN3_LIKE

WEATHER_Q = [{"role": "user", "content": "What is the weather in Paris?"}]
ADD_Q = [{"role": "user", "content": "Use the add tool to add 2 and 3."}]


def test_missing_default_model_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llama_module.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(LocalModelMissing, match=r"pytest-tooleval\[local\]"):
        llama_module.default_model_path()


def test_loading_the_modules_imports_nothing_heavy() -> None:
    code = (
        "import sys\n"
        "import pytest_tooleval.models.llama, pytest_tooleval.models.raw_openai\n"
        "heavy = {'llama_cpp', 'jinja2', 'numpy'} & set(sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.fixture(scope="module")
def on() -> Iterator[LlamaBackend]:
    backend = LlamaBackend(grammar="on", max_tokens=96, n_ctx=2048)
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def off() -> Iterator[LlamaBackend]:
    backend = LlamaBackend(grammar="off", max_tokens=48, n_ctx=2048)
    yield backend
    backend.close()


@pytest.mark.realmodel
def test_default_model_loads_and_describes_itself(on: LlamaBackend) -> None:
    info = on.describe()
    assert info["backend"] == "llama.cpp (embedded)"
    assert info["model_path"].endswith("SmolLM2-135M-Instruct.Q4_1.gguf")
    assert info["grammar"] == "on" and info["constraint"].startswith("json-envelope")
    assert info["llama_cpp"] and info["chat_template"] == "gguf"


@pytest.mark.realmodel
def test_sentinel_catches_smollm2_dropping_tools(on: LlamaBackend, tools: list[ToolSpec]) -> None:
    assert on.prompt.native_tools is False
    assert on.describe()["tools_shown"] == "injected"
    prompt = on.prompt.build(WEATHER_Q, tools)
    assert tool_block(tools) in prompt and CALL_FORMAT in prompt


@pytest.mark.realmodel
@pytest.mark.parametrize("question", [WEATHER_Q, ADD_Q], ids=["weather", "add"])
def test_constrained_step_is_parseable_and_schema_valid(
    on: LlamaBackend, tools: list[ToolSpec], question: list[dict]
) -> None:
    turn = on.complete(question, tools)
    assert turn.finish_reason == "stop", on.last_output
    value = json.loads(on.last_output)
    jsonschema.validate(value, envelope_schema(tools))
    if "tool" in value:
        (made,) = turn.calls
        assert made.parse_error is None and made.name == value["tool"]
        assert json.loads(made.arguments or "") == value["arguments"]
    else:
        assert turn.calls == [] and turn.content == value["answer"]
    assert turn.prompt_tokens and turn.completion_tokens and turn.latency_s > 0


@pytest.mark.realmodel
def test_off_uses_the_same_prompt_and_generates_freely(
    on: LlamaBackend, off: LlamaBackend, tools: list[ToolSpec]
) -> None:
    assert on.prompt.build(WEATHER_Q, tools) == off.prompt.build(WEATHER_Q, tools)
    turn = off.complete(WEATHER_Q, tools)
    assert off.describe()["constraint"] == "none"
    assert turn.completion_tokens and off.last_output


@pytest.mark.realmodel
def test_same_seed_gives_the_same_output(tools: list[ToolSpec]) -> None:
    def run(**settings: object) -> list[str]:
        backend = LlamaBackend(grammar="off", max_tokens=24, n_ctx=1024, seed=42,
                               temperature=0.9, **settings)
        try:
            return [backend.complete(WEATHER_Q, tools).content for _ in range(2)]
        finally:
            backend.close()

    assert run() == run()  # two runs, same seed, same order: the same transcript
    uncached = run(prefix_cache=False)
    assert uncached[0] == uncached[1]  # without the prefix cache every turn repeats too


def _other_tool(name: str) -> ToolSpec:
    return ToolSpec(name, f"The {name.replace('_', ' ')} of a place.", {
        "type": "object", "properties": {"place": {"type": "string"}}, "required": ["place"]},
        "inline:test")


@pytest.mark.realmodel
def test_transcripts_do_not_depend_on_order_or_on_prefix_reuse(tools: list[ToolSpec]) -> None:
    """Prompts sharing parts of their tool block, sampled at temperature 0.9 (so that any
    difference in the logits shows): the same text in either order and with reuse off."""
    extra = [_other_tool("get_time"), _other_tool("get_population")]
    prompts = [
        (WEATHER_Q, tools + extra[:1]),
        (ADD_Q, tools + extra[1:]),
        (WEATHER_Q, tools),
        (ADD_Q, tools + extra[:1]),
    ]

    def run(order: list[int], **settings: object) -> dict[int, str]:
        backend = LlamaBackend(grammar="off", max_tokens=16, n_ctx=1024, seed=7,
                               temperature=0.9, **settings)
        try:
            out = {}
            for i in order:
                out[i] = backend.complete(*prompts[i]).content
                if settings.get("prefix_cache", True) and i != order[0]:
                    assert backend.last_stats["evaluated"] < backend.last_stats["prompt_tokens"]
            return out
        finally:
            backend.close()

    forward = run([0, 1, 2, 3])
    assert run([3, 2, 1, 0]) == forward
    assert run([0, 1, 2, 3], prefix_cache=False) == forward


@pytest.mark.realmodel
def test_weight_buffers_suit_this_cpu_and_the_choice_reaches_llama_cpp() -> None:
    """On every machine: with the extra buffer types off, llama.cpp's load log never
    considers a repacked buffer (CPU_REPACK, AMX); with them on it does (where llama.cpp was
    built with REPACK). The default follows the CPU's AMX flags."""
    off = LlamaBackend(grammar="off", n_ctx=256, extra_buffers=False)
    on = LlamaBackend(grammar="off", n_ctx=256, extra_buffers=True)  # loads; never decodes
    try:
        assert off.describe()["use_extra_bufts"] is False
        assert off.info["buffer_log"] == [], off.info["buffer_log"]
        if "REPACK = 1" in on.info["system_info"] or "AMX" in on.info["system_info"]:
            assert any("REPACK" in line or "AMX" in line for line in on.info["buffer_log"])
        assert on.describe()["use_extra_bufts"] is True
    finally:
        off.close()
        on.close()
    auto = LlamaBackend(grammar="off", n_ctx=256)
    try:
        amx = llama_cpu.amx_in_system_info(auto.info["system_info"]) or bool(
            set(llama_cpu.AMX_FLAGS) & llama_cpu.cpu_flags())
        assert auto.describe()["use_extra_bufts"] is (not amx)
        assert ("AMX detected" in auto.describe()["weight_buffers"]) is amx
    finally:
        auto.close()


@pytest.mark.realmodel
def test_a_killed_model_process_is_an_error_and_the_next_call_gets_a_fresh_one(
    tools: list[ToolSpec],
) -> None:
    backend = LlamaBackend(grammar="on", max_tokens=8, n_ctx=1024)
    try:
        first = backend.process.pid
        assert first is not None
        os.kill(first, signal.SIGSEGV)
        with pytest.raises(ModelProcessDied, match=r"killed by SIGSEGV \(signal 11\)"):
            backend.complete(WEATHER_Q, tools)
        turn = backend.complete(WEATHER_Q, tools)
        assert backend.process.pid not in (None, first) and turn.finish_reason
    finally:
        backend.close()


#: A parent that loads the default model, says the worker's pid, and asks for a long answer.
BUSY_PARENT = textwrap.dedent(
    """
    from pytest_tooleval.models.llama import LlamaBackend
    backend = LlamaBackend(grammar="off", max_tokens=2048, n_ctx=4096)
    print(backend.process.pid, flush=True)
    print("asking", flush=True)
    backend.complete([{"role": "user", "content": "Count from 1 to 3000, one number a "
                       "line, then tell a long story. " * 30}], [])
    """
)


@pytest.mark.realmodel
def test_the_worker_ends_mid_generation_when_its_parent_is_killed() -> None:
    """pytest SIGKILLed while llama.cpp generates: the worker ends within seconds (its
    parent watch runs while llama.cpp holds no GIL), not when the generation is done."""
    from tests.test_model_crash import _gone

    parent = subprocess.Popen([sys.executable, "-c", BUSY_PARENT], stdout=subprocess.PIPE,
                              text=True)
    worker = None
    try:
        assert parent.stdout is not None
        worker = int(parent.stdout.readline())
        assert parent.stdout.readline().strip() == "asking"
        time.sleep(1.0)  # the prompt is being read or the answer generated
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        assert _gone(worker, within=5.0), "the llama.cpp worker outlived its parent"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        if worker is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(worker, signal.SIGKILL)


@pytest.mark.realmodel
def test_thinking_control_reaches_the_models_template() -> None:
    quiet = LlamaBackend(grammar="off", chat_template=QWEN3_LIKE, n_ctx=512)
    loud = LlamaBackend(grammar="off", chat_template=QWEN3_LIKE, n_ctx=512, thinking=True)
    assert quiet.prompt.build(WEATHER_Q, []).endswith("<think>\n\n</think>\n\n")
    assert "<think>" not in loud.prompt.build(WEATHER_Q, [])
    assert quiet.describe()["chat_template"] == "argument"


GRAMMAR_SHAPES = textwrap.dedent(
    """
    import json, sys
    from pytest_tooleval.models.llama import LlamaBackend
    from pytest_tooleval.tools.base import ToolSpec
    tools = [
        ToolSpec("search", "Search files.", {"type": "object", "properties": {
            "query": {"type": "string", "minLength": 1, "maxLength": 40},
            "kinds": {"type": "array", "items": {"enum": ["py", "md"]}, "maxItems": 2},
            "limit": {"type": ["integer", "null"], "minimum": 1},
            "where": {"$ref": "#/$defs/place"},
        }, "required": ["query"], "$defs": {"place": {"type": "object", "properties": {
            "dir": {"type": "string"}, "recursive": {"type": "boolean"}}}}}, "t"),
        ToolSpec("now", "The time.", {}, "t"),
        ToolSpec("tag", "Tag.", {"type": "object", "properties": {"t": {"anyOf": [
            {"type": "string", "pattern": "^[a-z]+$"}, {"type": "number"}]}}}, "t"),
    ]
    backend = LlamaBackend(grammar="on", max_tokens=int(sys.argv[1]), n_ctx=2048)
    turn = backend.complete([{"role": "user", "content": "Find python files about tests."}],
                            tools)
    print(json.dumps({"raw": backend.last_output, "finish": turn.finish_reason,
                      "unenforced": backend.describe().get("unenforced_schema_keywords")}))
    """
)


@pytest.mark.realmodel
def test_new_grammar_shapes_run_in_a_subprocess() -> None:
    # An invalid grammar crashes llama.cpp (segfault): new shapes are tried out of process.
    done = subprocess.run(
        [sys.executable, "-c", GRAMMAR_SHAPES, "160"], capture_output=True, text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["unenforced"] == ["minimum", "pattern"]
    if result["finish"] == "stop":
        value = json.loads(result["raw"])
        assert value.get("tool") in {"search", "now", "tag"} or "answer" in value


@pytest.mark.realmodel
def test_greedy_grammar_sampling_gives_the_library_chains_tokens(monkeypatch) -> None:
    """The faster greedy grammar sampler (grammar asked about the best token first) must
    pick exactly the tokens of llama-cpp-python's chain, which applies the grammar to the
    whole vocabulary at every step; the counters prove the fast path ran and that the
    grammar really rejected some best tokens (so the fallback path ran too)."""
    from tests.models.conftest import ADD, WEATHER

    questions = ["What is the weather in Paris?", "Use the add tool to add 2 and 3.",
                 "Write a haiku about the sea.", "hello there"]
    outputs: dict[str, list[str]] = {}
    stats: dict[str, Any] = {}
    for mode in ("off", "on"):
        monkeypatch.setenv("TOOLEVAL_GREEDY_GRAMMAR", mode)
        backend = LlamaBackend(grammar="on", max_tokens=64, n_ctx=2048, seed=1234)
        try:
            outputs[mode] = []
            for question in questions:
                backend.complete([{"role": "user", "content": question}], [WEATHER, ADD])
                outputs[mode].append(backend.last_output)
            stats[mode] = backend.stats()["greedy_grammar"]
            if mode == "on":
                assert backend.describe()["grammar_sampling"].startswith("greedy")
        finally:
            backend.close()
    assert outputs["on"] == outputs["off"]
    assert stats["off"] is None
    assert stats["on"]["generations"] == len(questions)
    assert stats["on"]["steps"] > stats["on"]["full_applies"] > 0
