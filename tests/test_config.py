"""Profiles and option precedence."""

from __future__ import annotations

import json
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


def test_a_misspelt_profile_name_gets_did_you_mean(tmp_path: Path) -> None:
    """`--model my-sever` named every profile but suggested none (a user's first hour)."""
    with pytest.raises(ProfileError) as refused:
        resolve_profile("my-sever", {"my-server": {"base_url": "http://x/v1"}}, tmp_path)
    assert "--model my-sever: no such profile (did you mean 'my-server'?)." in str(refused.value)
    with pytest.raises(ProfileError) as far:
        resolve_profile("zzz", {}, tmp_path)
    assert "did you mean" not in str(far.value)


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


# -- one configuration model ----------------------------------------------------------------
from pytest_tooleval.config import (  # noqa: E402
    ConfigError,
    FoundConfig,
    Layer,
    RunSettings,
    Settings,
    build_settings,
    find_project_config,
)
from pytest_tooleval.scoring.aggregate import Thresholds  # noqa: E402


def _settings(table: dict, *layers: Layer, where: Path | None = None) -> Settings:
    found = FoundConfig(where or Path("/proj/tooleval.toml"), table)
    return build_settings(found, Path("/proj"), list(layers))


def test_no_default_is_written_twice_in_the_package() -> None:
    """The thresholds' defaults are written only in scoring/settings.py and the number of
    tools shown only as ``router.base.SHOWN``: a second copy (merge.py had the thresholds,
    ten signatures had ``k: int = 9``) can drift from the first."""
    import re

    package = Path(__file__).resolve().parents[1] / "pytest_tooleval"
    shown = re.compile(r"\bk: int = 9\b|\bk=9\b|Field\(9\b|\"k\", 9\)")
    thresholds = re.compile(r"[\"']gate[\"'], 0\.9|[\"']min_score[\"'], 70|"
                            r"[\"']max_malformed[\"'], 0\.02|[\"']min_cases[\"'], 10\b")
    clocks = re.compile(r"Field\((30|600)\.0\b")  # tools/deadline.py's TOOL/CASE_TIMEOUT_S
    found = [f"{path.relative_to(package)}:{number}: {line.strip()}"
             for path in sorted(package.rglob("*.py"))
             for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
             if shown.search(line) or thresholds.search(line) or clocks.search(line)]
    assert found == []


def test_the_configurations_defaults_are_the_scoring_thresholds() -> None:
    settings = _settings({})
    thresholds = Thresholds()
    assert settings.thresholds() == thresholds
    assert (settings.gate, settings.min_score, settings.max_malformed) == (
        thresholds.gate, thresholds.min_score, thresholds.max_malformed)
    assert settings.k == RunSettings().k == 9 and settings.sample == 1
    assert settings.report_dir == Path("/proj/tooleval-report")


@pytest.mark.parametrize(("table", "expected"), [
    ({"min_scor": 50}, r"tooleval.toml: min_scor: unknown key \(did you mean 'min_score'\?\)"),
    ({"modles": {"x": {"base_url": "http://h/v1"}}},
     r"modles: unknown key \(did you mean 'models'\?\)"),
    ({"k": 0}, r"k = 0: Input should be greater than or equal to 1"),
    ({"gate": 1.5}, r"gate = 1.5: Input should be less than or equal to 1"),
    ({"max_malformed": -0.1}, r"max_malformed = -0.1: .*greater than or equal to 0"),
    ({"sample": 0}, r"sample = 0: .*greater than or equal to 1"),
    ({"min_score": 170}, r"min_score = 170: .*less than or equal to 100"),
    # a thread's join overflowed on these (every tool call an OverflowError)
    ({"tool_timeout": 1e300}, r"tool_timeout = 1e\+300: .*less than or equal to 86400"),
    ({"tool_timeout": float("inf")}, r"tool_timeout = inf: .*less than or equal to 86400"),
    ({"case_timeout": 1e300}, r"case_timeout = 1e\+300: .*less than or equal to 86400"),
    ({"partial": "maybe"}, r"partial = 'maybe': Input should be 'fail' or 'pass'"),
    ({"models": {"mine": {"base_url": "127.0.0.1:8080/v1"}}},
     r"\[models\.mine\]: base_url '127.0.0.1:8080/v1' must start with http:// or https://"),
    ({"models": {"mine": {"base_url": "http://h/v1", "temprature": 0}}},
     r"\[models\.mine\]: temprature: unknown field \(did you mean 'temperature'\?\)"),
    ({"models": {"mine": "http://h/v1"}},
     r"models\.mine = 'http://h/v1': Input should be a valid dict"),
    ({"mcp": {"git": {"comand": "x"}}},
     r"\[mcp\.git\]: field 'comand': unknown field \(did you mean 'command'\?\)"),
    # TOML values have types: `true` was taken for 1 (one tool shown, one token a turn)
    ({"k": True}, r"k = True: Input should be a valid integer"),
    ({"gate": "0.9"}, r"gate = '0.9': Input should be a valid number"),
    ({"models": {"mine": {"base_url": "http://h/v1", "max_tokens": True}}},
     r"\[models\.mine\]: max_tokens: Input should be a valid integer"),
    ({"models": {"mine": {"base_url": "http://h/v1", "timeout": "30"}}},
     r"\[models\.mine\]: timeout: Input should be a valid number"),
])
def test_the_file_is_validated_with_the_key_named(table: dict, expected: str) -> None:
    with pytest.raises(ConfigError, match=expected):
        _settings(table)


def test_pyproject_messages_name_the_tool_tooleval_tables() -> None:
    with pytest.raises(ConfigError, match=r"\[tool\.tooleval\.mcp\.git\]: field 'comand'"):
        _settings({"mcp": {"git": {"comand": "x"}}}, where=Path("/proj/pyproject.toml"))


def test_layers_win_over_the_file_and_name_their_source() -> None:
    settings = _settings({"k": 5, "skip_missing": True, "builtin": False},
                         Layer("ini tooleval_k", "k", "7"))
    assert settings.k == 7 and settings.skip_missing and settings.no_builtin
    with pytest.raises(ConfigError, match=r"--tooleval-k 0: .*greater than or equal to 1"):
        _settings({"k": 5}, Layer("--tooleval-k", "k", "0"))
    with pytest.raises(ConfigError, match=r"--tooleval-gate x: Input should be a valid number"):
        _settings({}, Layer("--tooleval-gate", "gate", "x"))


def test_typed_tables_are_parsed_once(tmp_path: Path) -> None:
    settings = _settings({"mcp": {"t": {"command": "python", "args": ["-m", "x"]}},
                          "python_tools": ["mytools"],
                          "models": {"mine": {"base_url": "http://h/v1"}}},
                         where=tmp_path / "tooleval.toml")
    assert settings.mcp_servers["t"].cwd == str(tmp_path)  # relative to the file's folder
    assert settings.python_tools == ["mytools"] and "mine" in settings.profiles
    assert settings.config_dir == tmp_path


def test_a_profiles_files_are_relative_to_the_configuration_file(tmp_path: Path) -> None:
    """``template = "chat.jinja"`` worked from the project's folder and, from a subfolder,
    stopped the run: "template = 'chat.jinja': no such file (from .../benchmarks)"; a
    ``gguf`` path the same ("no GGUF file at models/x.gguf")."""
    settings = _settings({"models": {
        "mine": {"base_url": "http://h/v1", "template": "chat.jinja"},
        "local": {"gguf": "models/x.gguf"},
        "kept": {"gguf": "default", "base_url": "http://h/v1", "template": "{{ messages }}"},
        "absolute": {"gguf": "/models/x.gguf"}}}, where=tmp_path / "tooleval.toml")
    profile = resolve_profile("mine", settings.profiles, Path("/elsewhere"))
    assert profile.template == str(tmp_path / "chat.jinja")
    assert resolve_profile("local", settings.profiles, Path("/elsewhere")).gguf == \
        str(tmp_path / "models" / "x.gguf")
    assert settings.profiles["kept"]["gguf"] == "default"
    assert settings.profiles["kept"]["template"] == "{{ messages }}"
    assert settings.profiles["absolute"]["gguf"] == "/models/x.gguf"


def test_the_nearest_configuration_wins_and_farther_ones_are_named(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.tooleval]\nk = 3\n")
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "tooleval.toml").write_text("k = 4\n")
    found = find_project_config(sub, tmp_path)
    assert found.path == sub / "tooleval.toml" and found.table == {"k": 4}
    assert found.shadowed == (tmp_path / "pyproject.toml",)
    # A pyproject.toml without [tool.tooleval] is no configuration and shadows nothing.
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert find_project_config(sub, tmp_path).shadowed == ()
    # Started outside the rootdir: the rootdir alone.
    assert find_project_config(tmp_path, sub).path == sub / "tooleval.toml"


def test_a_tooleval_toml_below_an_ancestor_pyproject_is_used(project, fake_model) -> None:
    from tests.support.fake_openai import Rule, answer

    server = fake_model([Rule("", [answer("bye")])])
    (project.path / "pyproject.toml").write_text("[project]\nname = 'outer'\n")
    sub = project.path / "sub"
    sub.mkdir()
    project.write("sub/scenarios/demo.yaml", scenario([THANKS_CASE]))
    (sub / "tooleval.toml").write_text(
        f'report_dir = "sub-report"\n[models.fake]\nbase_url = "{server.base_url}"\n'
        'model = "m"\nretries = 1\n')
    result = project.run("sub/scenarios/demo.yaml")
    assert result.ret == 0, result.stdout.str()
    report = json.loads((sub / "sub-report" / "report.json").read_text("utf-8"))
    assert report["run"]["config_file"] == str(sub / "tooleval.toml")


def test_a_shadowed_file_is_warned_about(project, fake_model) -> None:
    from tests.support.fake_openai import Rule, answer

    server = fake_model([Rule("", [answer("bye")])])
    project.profile(server)
    (project.path / "pyproject.toml").write_text("[tool.tooleval]\nk = 3\n")
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    result = project.run()
    result.stdout.fnmatch_lines(["*pyproject.toml is not used: the configuration comes from "
                                 "*tooleval.toml*"])


@pytest.mark.parametrize(("args", "expected"), [
    (("--tooleval-k", "0"), "*--tooleval-k 0: Input should be greater than or equal to 1*"),
    (("--tooleval-sample", "0"), "*--tooleval-sample 0: *greater than or equal to 1*"),
    (("--tooleval-gate", "2"), "*--tooleval-gate 2: *less than or equal to 1*"),
])
def test_bad_options_are_usage_errors_not_tracebacks(project, args, expected) -> None:
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    result = project.run(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([expected])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_a_misspelt_file_key_stops_the_run(project) -> None:
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    (project.path / "tooleval.toml").write_text("min_scor = 50\n")
    result = project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*tooleval.toml: min_scor: unknown key (did you mean "
                                 "'min_score'?)*"])


def test_case_paths_and_node_ids_are_told_apart() -> None:
    from pytest_tooleval.cases.files import is_case_nodeid, is_case_path

    assert is_case_path("benchmarks/a.json") and is_case_path(Path("s/b.yml"))
    assert not is_case_path("conftest.py") and not is_case_path("notes.txt")
    assert is_case_nodeid("scenarios/x.yaml::case-1")
    assert not is_case_nodeid("tests/test_x.py::test_y") and not is_case_nodeid("a.json")


def test_an_incomplete_or_unknown_profile_names_the_file_and_its_table(project) -> None:
    """A tooleval.toml profile without base_url was "[tool.tooleval.models.mine]: base_url
    is required": no file, and a table that file does not have."""
    project.write("scenarios/demo.yaml", scenario([THANKS_CASE]))
    (project.path / "tooleval.toml").write_text('[models.mine]\nmodel = "m"\n')
    result = project.run("--model", "mine")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {project.path / 'tooleval.toml'}: [[]models.mine]: "
                                 "base_url is required*"])
    result = project.run("--model", "nosuch")
    result.stderr.fnmatch_lines([f"*Define your own under [[]models.nosuch] in "
                                 f"{project.path / 'tooleval.toml'} with base_url and model."])


def test_a_value_outside_a_fixed_set_gets_did_you_mean() -> None:
    """A user wrote isolation = "per_case": "Input should be 'per-case' or 'per-run'", with
    no hint, where every unknown key and field gets one."""
    from pytest_tooleval.tools.mcp.config import McpConfigError, load_mcp_configs

    with pytest.raises(McpConfigError) as info:
        load_mcp_configs({"toy": {"command": "python", "isolation": "per_case"}})
    assert str(info.value).endswith("field 'isolation': Input should be 'per-case' or "
                                    "'per-run' (did you mean 'per-case'?)")
