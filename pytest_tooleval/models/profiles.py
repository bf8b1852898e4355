"""Model profiles: named ways to reach a model, from configuration or built in.

``[tool.tooleval.models.NAME]`` in pyproject.toml (or ``[models.NAME]`` in tooleval.toml)
overrides a built-in profile of the same name field by field.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from pytest_tooleval.configfile import table_line
from pytest_tooleval.hints import choice_hint, did_you_mean
from pytest_tooleval.models.registry import unknown_kind

DEFAULT_PROFILE = "smollm2-135m"
#: More threads than this in one process gain nothing over a few xdist workers.
MAX_CONCURRENCY = 256


class Profile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = ""
    #: The backend kind (models/registry.py): "openai", "llama", or a plugin's own.
    kind: str = "openai"
    #: One server, or a list of replicas serving the same model (each case goes to the
    #: least-loaded replica; ties in turn).
    base_url: str | list[str] | None = None
    model: str | None = None
    api_key_env: str | None = None
    gguf: str | None = None
    # Sampling, pinned and sent to every server that takes it. "server" in a profile (None
    # here): not sent, the server's default applies (for APIs that refuse llama.cpp's fields).
    temperature: float = Field(default=0.0, ge=0)
    top_p: float | None = Field(default=0.95, gt=0, le=1)
    top_k: int | None = Field(default=40, ge=0)
    min_p: float | None = Field(default=0.05, ge=0, le=1)
    repeat_penalty: float | None = Field(default=1.0, gt=0)
    seed: int = 1234
    #: With --tooleval-repeat: every try uses ``seed`` (true), instead of seed + try − 1.
    pin_seed: bool = False
    max_tokens: int = Field(default=512, ge=1)
    timeout: float = Field(default=120.0, gt=0)
    max_steps: int = Field(default=6, ge=1)
    retries: int = Field(default=3, ge=0)
    #: Case tool loops kept in flight at once by one process (docs/usage.md, "Concurrency").
    concurrency: int = Field(default=1, ge=1, le=MAX_CONCURRENCY)
    grammar: Literal["on", "off", "vendor"] | None = None
    thinking: bool = False
    n_threads: int | None = None
    n_ctx: int = 4096
    system_prompt: str | None = None
    template: str | None = None  # a chat-template file for raw prompting of remote servers
    start_hint: str | None = None  # how to start the server, shown when it is unreachable
    #: The file and line of the profile's table, where a warning about it points.
    _table_at: tuple[str, int] | None = PrivateAttr(default=None)

    def warn(self, message: str) -> None:
        """A warning about this profile, at its table (a built-in's: at the caller's caller)."""
        if self._table_at is None:
            warnings.warn(message, stacklevel=3)
        else:
            warnings.warn_explicit(message, UserWarning, *self._table_at)

    @field_validator("top_p", "top_k", "min_p", "repeat_penalty", mode="before")
    @classmethod
    def _server_default(cls, value: Any) -> Any:
        return None if value == "server" else value

    @property
    def base_urls(self) -> list[str]:
        """Every replica's base URL (one for a plain ``base_url``)."""
        if self.base_url is None:
            return []
        return [self.base_url] if isinstance(self.base_url, str) else list(self.base_url)

    def describe(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True, exclude={"api_key_env"})

    def sampling(self) -> dict[str, Any]:
        """The pinned sampling parameters (those not None), as the report records them."""
        return self.model_dump(include=set(SAMPLING_FIELDS), exclude_none=True)


#: The profile fields that decide how tokens are drawn; runs that differ in them are not
#: comparable (``compare`` and ``gap --from-reports`` refuse them).
SAMPLING_FIELDS = ("temperature", "top_p", "top_k", "min_p", "repeat_penalty", "seed",
                   "max_tokens")


BUILTIN_PROFILES: dict[str, dict[str, Any]] = {
    # A 135M model: short answers and few rounds keep a corpus run within reach of two CPU
    # cores. n_ctx 8192: SmolLM2's trained context; long tool outputs and chains pass 4k.
    DEFAULT_PROFILE: {"kind": "llama", "gguf": "default", "n_ctx": 8192, "max_tokens": 192,
                      "max_steps": 4},
    "qwen3-4b": {
        "base_url": "http://127.0.0.1:8080/v1",
        "model": "qwen3-4b",
        "start_hint": "llama-server -hf Qwen/Qwen3-4B-GGUF:Q4_K_M --jinja --port 8080",
    },
    "llama-server": {
        "base_url": "http://127.0.0.1:8080/v1",
        "model": "default",
        "start_hint": "llama-server -m MODEL.gguf --jinja --port 8080",
    },
    # vLLM and Ollama have no /apply-template: grammar on/off would need `template =`, so
    # their default is the server's own tool calling.
    "vllm": {
        "base_url": "http://127.0.0.1:8000/v1",
        "model": "default",
        "grammar": "vendor",
        "start_hint": "vllm serve MODEL --enable-auto-tool-choice --tool-call-parser hermes",
    },
}

OLLAMA_URL = "http://127.0.0.1:11434/v1"


class ProfileError(Exception):
    pass


_URL_SCHEMES = ("http://", "https://")


def validate_profile_table(name: str, table: dict[str, Any], section: str) -> None:
    """Check one ``[models.NAME]`` table on its own, when the configuration is read: known
    fields (with the closest known one for a typo), types and ranges, and a
    ``base_url`` with an http(s) scheme. Whether it is complete is decided on use."""
    _profile(name, BUILTIN_PROFILES.get(name, {}), table, f"[{section}.{name}]")


def _profile(name: str, base: dict[str, Any], table: dict[str, Any], where: str) -> Profile:
    """``table`` over ``base`` (a table with ``gguf`` and no ``kind`` is an embedded model).
    Tables reach here as dicts: config.ProjectFile validates ``models`` as a dict of dicts."""
    fields = {**base, **table, "name": name}
    if "gguf" in table and "kind" not in table:
        fields["kind"] = "llama"
    try:
        profile = Profile.model_validate(fields, strict=True)  # TOML has types: true is no 1
    except ValidationError as exc:
        problems = []
        for err in exc.errors(include_url=False):
            field = ".".join(str(p) for p in err["loc"]) or "(profile)"
            message = err["msg"] + choice_hint(err)
            if err["type"] == "extra_forbidden":
                message = "unknown field" + did_you_mean(field, Profile.model_fields)
            problems.append(f"{field}: {message}")
        raise ProfileError(f"{where}: {'; '.join(problems)}") from None
    why = unknown_kind(profile.kind)
    if why is not None:
        raise ProfileError(f"{where}: {why}")
    if isinstance(profile.base_url, list) and not profile.base_url:
        raise ProfileError(f"{where}: base_url is an empty list; give one URL or a list of "
                           'replicas (for example ["http://10.0.0.1:8000/v1", '
                           '"http://10.0.0.2:8000/v1"])')
    for url in profile.base_urls:
        if not url.startswith(_URL_SCHEMES):
            raise ProfileError(
                f"{where}: base_url {url!r} must start with http:// or https:// "
                '(for example "http://127.0.0.1:8080/v1")'
            )
    if len(set(profile.base_urls)) != len(profile.base_urls):
        raise ProfileError(f"{where}: base_url lists a replica twice: {profile.base_url!r}")
    return profile


def resolve_profile(name: str | None, configured: dict[str, Any], rootdir: Path,
                    config_file: Path | None = None) -> Profile:
    """Turn ``--model`` into a profile: a configured or built-in name, ``ollama:MODEL``,
    or a path to a GGUF file. ``None`` means the embedded default model. ``config_file``
    (the file ``configured`` came from) is named in messages, with its own table names."""
    name = name or DEFAULT_PROFILE
    in_pyproject = config_file is None or config_file.name != "tooleval.toml"
    table = f"[{'tool.tooleval.' if in_pyproject else ''}models.{name}]"
    where = f"{config_file}: {table}" if config_file else table
    fields: dict[str, Any] = {}
    if name in BUILTIN_PROFILES:
        fields.update(BUILTIN_PROFILES[name])
    elif name.startswith("ollama:"):
        model = name.split(":", 1)[1].strip()
        if not model:
            raise ProfileError(
                "--model ollama: names no model; put the model after the colon as `ollama "
                "list` shows it, for example --model ollama:qwen3:4b")
        fields.update(
            base_url=OLLAMA_URL, model=model, grammar="vendor",
            start_hint=f"ollama serve & ollama pull {model}",
        )
    elif name.lower().endswith(".gguf"):
        path = rootdir / name  # an absolute name stays as it is
        if not path.is_file():
            raise ProfileError(f"--model {name}: no GGUF file at {path}")
        fields.update(kind="llama", gguf=str(path))
    user = configured.get(name)
    if user is None and not fields:
        known = sorted({*BUILTIN_PROFILES, *configured})
        raise ProfileError(
            f"--model {name}: no such profile{did_you_mean(name, known)}. Known profiles: "
            f"{', '.join(known)}; "
            f"or use ollama:MODEL, or a path to a .gguf file. Define your own under {table}"
            f"{f' in {config_file}' if config_file else ''} with base_url and model."
        )
    profile = _profile(name, fields, {} if user is None else user, where)
    if user is not None and config_file is not None and config_file.is_file():
        profile._table_at = (str(config_file), table_line(config_file, "models", name))
    if profile.kind == "openai" and not profile.base_url:
        raise ProfileError(
            f"{where}: base_url is required (for example "
            '"http://127.0.0.1:8080/v1"), or give gguf = "path/to/model.gguf"'
        )
    return profile
