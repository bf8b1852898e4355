"""Set-up mistakes of a model profile said with their fix: an empty ``ollama:`` name is
refused; a model id the server does not list, and an ``api_key_env`` naming a variable
that is not set, are one warning each."""

from __future__ import annotations

import tomllib
import warnings
from pathlib import Path

import pytest

from pytest_tooleval.models.base import BackendError, RequestRefused
from pytest_tooleval.models.openai import OpenAIChatBackend
from pytest_tooleval.models.profiles import Profile, ProfileError, resolve_profile
from pytest_tooleval.models.raw_openai import RawCompletionBackend
from tests.conftest import THANKS_CASE, scenario
from tests.support.fake_openai import FakeOpenAI

UNSET = "TOOLEVAL_TEST_UNSET_KEY"


@pytest.mark.parametrize("name", ["ollama:", "ollama:  "])
def test_an_empty_ollama_model_is_refused_with_the_fix(name: str, tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match=r"names no model.*ollama list.*--model ollama:qwen3:4b"):
        resolve_profile(name, {}, tmp_path)
    assert resolve_profile("ollama:qwen3:4b", {}, tmp_path).model == "qwen3:4b"


def test_a_model_the_server_does_not_list_is_a_warning_naming_the_ids_it_lists() -> None:
    with FakeOpenAI() as fake:
        chat = OpenAIChatBackend(Profile(name="t", base_url=fake.base_url, model="qwen3-4b"))
        with pytest.warns(UserWarning, match=r"does not list the profile's model 'qwen3-4b' "
                          r"\(GET /models lists: fake-model\).*Set the profile's model") as seen:
            info = chat.preflight()
        raw = RawCompletionBackend(
            Profile(name="t", base_url=fake.base_url, model="qwen3-4b"), "off")
        with pytest.warns(UserWarning, match="does not list the profile's model 'qwen3-4b'"):
            raw.preflight()
    assert len(seen) == 1 and info["preflight"]["model_listed"] is False


@pytest.mark.parametrize(("listed", "model"), [("fake-model", "fake-model"),
                                               ("llama3.2:latest", "llama3.2"),
                                               ("fake-model", "default")])
def test_a_listed_model_gives_no_warning(listed: str, model: str) -> None:
    with FakeOpenAI(model=listed) as fake, warnings.catch_warnings():
        warnings.simplefilter("error")
        OpenAIChatBackend(Profile(name="t", base_url=fake.base_url, model=model)).preflight()


@pytest.mark.parametrize("grammar", ["vendor", "off"])
def test_the_builtin_vllm_profile_asks_for_the_model_vllm_serves(tmp_path: Path,
                                                                 grammar: str) -> None:
    """vLLM answers HTTP 404 to any model name but the one it serves, and the built-in
    profile says "default": its preflight was refused ("The model `default` does not
    exist.") whatever the server ran. "default" is the one model the server lists."""
    with FakeOpenAI(model="Qwen/Qwen3-4B", strict_model=True, apply_template=False) as fake:
        profile = resolve_profile("vllm", {"vllm": {"base_url": fake.base_url,
                                                    "template": "{{ messages }}"}}, tmp_path)
        assert profile.model == "default"
        backend = (OpenAIChatBackend(profile) if grammar == "vendor"
                   else RawCompletionBackend(profile, grammar))
        backend.preflight()
        assert backend.complete([{"role": "user", "content": "hi"}], []).content == "ok"
        assert {body["model"] for path, body in fake.requests
                if path.endswith("completions")} == {"Qwen/Qwen3-4B"}


@pytest.mark.parametrize("grammar", ["vendor", "on"])
def test_a_model_the_server_refuses_is_an_error_naming_the_ids_it_serves(grammar: str) -> None:
    """vLLM answers HTTP 404 to a model it does not serve: the run's message said only
    "The model `qwen3-4b` does not exist."; the ids it serves were in a warning above."""
    with FakeOpenAI(model="Qwen/Qwen3-4B", strict_model=True, apply_template=False) as fake:
        profile = Profile(name="t", base_url=fake.base_url, model="qwen3-4b",
                          template="{{ messages }}")
        backend = (OpenAIChatBackend(profile) if grammar == "vendor"
                   else RawCompletionBackend(profile, grammar))
        with pytest.warns(UserWarning), pytest.raises(BackendError) as caught:
            backend.preflight()
    assert "`qwen3-4b` does not exist" in str(caught.value)
    assert str(caught.value).endswith(" The server lists Qwen/Qwen3-4B (GET /models), not "
                                      "'qwen3-4b': set the profile's model to one of those.")


def test_a_server_that_answered_the_model_name_is_not_told_to_change_it() -> None:
    """llama-server lists its model file and answers any name: a canary it answers
    unconstrained said "set the profile's model to one of those" as if the name were refused."""
    with FakeOpenAI(model="models/Qwen3-4B-Q4_K_M.gguf") as fake:
        backend = RawCompletionBackend(Profile(name="t", base_url=fake.base_url,
                                               model="qwen3-4b"), "on")
        with pytest.warns(UserWarning), pytest.raises(BackendError) as caught:
            backend.preflight()
    assert "ignored the JSON-schema constraint (canary replies: json_schema: 'ok')" in str(
        caught.value)
    assert "GET /models" not in str(caught.value)


@pytest.mark.parametrize("grammar", ["vendor", "on"])
@pytest.mark.parametrize("path", ["/api", "/v1/v1"])
def test_a_base_url_the_server_does_not_serve_is_refused_with_the_fix(path: str,
                                                                      grammar: str) -> None:
    """HTTP 404 to every request: the message said only that ("no route for POST
    /api/chat/completions"), not which setting to look at; grammar on said the server "has
    no /apply-template (it is not llama-server)" and sent the user to --grammar vendor."""
    with FakeOpenAI() as fake:
        profile = Profile(name="t", base_url=fake.root_url + path, model="fake-model")
        backend = (OpenAIChatBackend(profile) if grammar == "vendor"
                   else RawCompletionBackend(profile, grammar))
        with pytest.raises(RequestRefused, match=r"HTTP 404.*check the profile's base_url "
                           r"\(OpenAI-compatible servers answer under \.\.\./v1\) and model"):
            backend.preflight()


def test_an_api_key_variable_that_is_not_set_is_a_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(UNSET, raising=False)
    profile = Profile(name="cloud", base_url="http://127.0.0.1:9/v1", api_key_env=UNSET)
    with pytest.warns(UserWarning, match=rf"profile 'cloud': api_key_env = '{UNSET}' names an "
                      rf"environment variable that is not set.*export {UNSET}="):
        OpenAIChatBackend(profile)
    with pytest.warns(UserWarning, match=UNSET):
        RawCompletionBackend.from_profile(profile, "off")
    monkeypatch.setenv(UNSET, "sk-test")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert OpenAIChatBackend(profile).http._client.headers["Authorization"] == \
            "Bearer sk-test"


def test_spaces_around_an_api_key_are_not_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    """A key read with its newline (or a blank variable) was put in the header as it was:
    httpx refused the header, the run stopped blaming the server ("broke the connection
    ... Illegal header value b'Bearer sk-test\\n'") and the key went into report.json."""
    profile = Profile(name="cloud", base_url="http://127.0.0.1:9/v1", api_key_env=UNSET)
    monkeypatch.setenv(UNSET, " sk-test\n")
    assert OpenAIChatBackend(profile).http._client.headers["Authorization"] == "Bearer sk-test"
    monkeypatch.setenv(UNSET, "  ")
    with pytest.warns(UserWarning, match=rf"api_key_env = '{UNSET}' names an environment "
                      r"variable that is not set \(or blank\)"):
        assert "Authorization" not in OpenAIChatBackend(profile).http._client.headers


def test_a_key_a_header_cannot_carry_stops_the_run_without_quoting_it(
        project, fake_model, monkeypatch) -> None:
    """A pasted quote in the key: httpx refused the header and its message, with the key,
    went into report.json as the server's failure."""
    monkeypatch.setenv(UNSET, "sk-secret\u201d")
    project.profile(fake_model(), api_key_env=UNSET)
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    result = project.run()
    output = result.stdout.str() + result.stderr.str()
    assert "holds a character an HTTP header cannot carry" in output
    assert "sk-secret" not in output + (project.path / "tooleval-report" / "report.json"
                                        ).read_text("utf-8")


def test_the_warnings_show_once_in_a_run(project, fake_model, monkeypatch) -> None:
    monkeypatch.delenv(UNSET, raising=False)
    project.profile(fake_model(), model="other-model", api_key_env=UNSET)
    project.write("scenarios/demo.yaml",
                  scenario([THANKS_CASE, dict(THANKS_CASE, name="thanks-again")]))
    result = project.run(subprocess=True)  # in the summary, or on stderr before the cases
    out = result.stdout.str() + result.stderr.str()
    assert out.count("does not list the profile's model 'other-model' "
                     "(GET /models lists: fake-model)") == 1
    assert out.count(f"api_key_env = '{UNSET}' names an environment variable") == 1
    # Serially as under -n 2: the preflight's warning is in pytest's warnings summary, not
    # Python's raw warning (with a line of our code) on stderr in the middle of the progress.
    summary = result.stdout.str().partition("warnings summary")[2]
    assert "does not list the profile's model 'other-model'" in summary
    # At the profile's table in the user's file, not at a line of the harness's code.
    assert "pyproject.toml:" in summary or "tooleval.toml:" in summary
    assert "pytest_tooleval" not in summary.partition("-- Docs")[0]
    assert "UserWarning" not in result.stderr.str()


@pytest.mark.parametrize(("file", "text"), [
    ("tooleval.toml", 'repeat = 1\n\n[models."qwen3.5"]\nbase_url = "http://127.0.0.1:9/v1"\n'),
    ("tooleval.toml", 'repeat = 1\n\n[ models . "qwen3.5" ]  # mine\nbase_url = "http://h/v1"\n'),
    ("pyproject.toml", '[tool.tooleval]\nrepeat = 1\n[tool.tooleval.models."qwen3.5"]\n'
     'base_url = "http://h/v1"\n'),
    # an inline table, dotted keys: line 1 ('repeat = 1', '[project]')
    ("tooleval.toml", 'repeat = 1\n[models]\n"qwen3.5" = { base_url = "http://h/v1" }\n'),
    ("tooleval.toml", 'repeat = 1\n[models]  # mine\n"qwen3.5".base_url = "http://h/v1"\n'),
    ("tooleval.toml", '[models."qwen3.5.1"]\nbase_url = "http://h/v1"\n'
     '[models."qwen3.5"]\nbase_url = "http://h/v1"\n'),
    ("pyproject.toml",
     '[project]\n[tool.tooleval]\nmodels . "qwen3.5" = { base_url = "http://h/v1" }\n'),
])
def test_a_warning_points_at_the_line_that_defines_the_profile(file: str, text: str,
                                                               tmp_path: Path) -> None:
    """A quoted name (one with a dot), a spaced header: the warning pointed at line 1 of the
    file and quoted 'repeat = 1'."""
    config = tmp_path / file
    config.write_text(text, encoding="utf-8")
    table = tomllib.loads(text)
    models = table["models"] if file == "tooleval.toml" else table["tool"]["tooleval"]["models"]
    profile = resolve_profile("qwen3.5", models, tmp_path, config)
    with pytest.warns(UserWarning) as caught:
        profile.warn("tooleval: a warning")
    assert (caught[0].filename, caught[0].lineno) == (str(config), 3)
