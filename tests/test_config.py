"""Profiles and option precedence."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_tooleval.models.profiles import DEFAULT_PROFILE, ProfileError, resolve_profile
from tests.conftest import THANKS_CASE, scenario


def test_builtin_and_ollama_profiles(tmp_path: Path) -> None:
    qwen = resolve_profile("qwen3-4b", {}, tmp_path)
    assert qwen.base_url == "http://127.0.0.1:8080/v1" and qwen.kind == "openai"
    assert "llama-server" in (qwen.start_hint or "")
    ollama = resolve_profile("ollama:qwen3:4b", {}, tmp_path)
    assert ollama.base_url == "http://127.0.0.1:11434/v1" and ollama.model == "qwen3:4b"
    default = resolve_profile(None, {}, tmp_path)
    assert default.name == DEFAULT_PROFILE and default.kind == "llama"


def test_configured_profile_overrides_builtin_field_by_field(tmp_path: Path) -> None:
    profile = resolve_profile("qwen3-4b", {"qwen3-4b": {"base_url": "http://gpu:9000/v1",
                                                        "seed": 7}}, tmp_path)
    assert profile.base_url == "http://gpu:9000/v1" and profile.seed == 7
    assert profile.model == "qwen3-4b"  # kept from the built-in


def test_gguf_path_and_missing_file(tmp_path: Path) -> None:
    (tmp_path / "m.gguf").write_bytes(b"GGUF")
    assert resolve_profile("m.gguf", {}, tmp_path).gguf == str(tmp_path / "m.gguf")
    with pytest.raises(ProfileError, match="no GGUF file at"):
        resolve_profile("absent.gguf", {}, tmp_path)


def test_profile_errors_say_how_to_fix(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match=r"no such profile.*tool\.tooleval\.models\.mine"):
        resolve_profile("mine", {}, tmp_path)
    with pytest.raises(ProfileError, match="temperature"):
        resolve_profile("mine", {"mine": {"base_url": "http://x/v1", "temperature": "hot"}},
                        tmp_path)
    with pytest.raises(ProfileError, match="base_url is required"):
        resolve_profile("mine", {"mine": {"model": "x"}}, tmp_path)
    with pytest.raises(ProfileError, match="temprature"):  # misspelt fields are refused
        resolve_profile("mine", {"mine": {"base_url": "http://x/v1", "temprature": 0}},
                        tmp_path)


def test_options_documented_in_help(project) -> None:
    result = project.pytester.runpytest("-p", "pytest_tooleval.plugin", "--help")
    for flag in ("--model", "--grammar", "--tooleval-report", "--tooleval-gate",
                 "--tooleval-min-score", "--tooleval-partial", "--tooleval-skip-missing",
                 "tooleval_model", "tooleval_files"):
        assert flag in result.stdout.str()


def test_precedence_cli_over_ini_over_config_file(project, fake_model) -> None:
    from tests.support.fake_openai import Rule, answer

    server = fake_model([Rule("", [answer("bye")])])
    project.profile(server)
    config = project.path / "tooleval.toml"
    config.write_text('report_dir = "from-config"\n' + config.read_text())  # before the tables
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    project.run()
    assert (project.path / "from-config" / "report.json").is_file()
    project.pytester.makeini("[pytest]\ntooleval_report_dir = from-ini\n")
    project.run()
    assert (project.path / "from-ini" / "report.json").is_file()
    project.run("--tooleval-report", "from-cli")
    assert (project.path / "from-cli" / "report.json").is_file()


def test_an_unreachable_builtin_profile_says_how_to_start_the_server(project) -> None:
    # qwen3-4b defaults to grammar on: raw completions against llama-server on :8080.
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    config = project.path / "tooleval.toml"
    config.write_text('[models.qwen3-4b]\nbase_url = "http://127.0.0.1:9/v1"\nretries = 0\n')
    result = project.run("--model", "qwen3-4b", "--grammar", "on")
    result.stdout.fnmatch_lines(["*no model server at http://127.0.0.1:9*Start one with: "
                                 "llama-server -hf Qwen/Qwen3-4B-GGUF*"])
