"""Replays data/repo.yaml into a real git repository with stable commit ids.

Commit ids depend only on content, authors, dates and messages, so every variable git could
pick up from the machine is pinned: no system or global config, a throwaway HOME, explicit
author and committer dates, an empty template directory and no reflogs.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from pytest_tooleval.world.data_io import load_yaml


class RepoBuildError(RuntimeError):
    """The repository script is inconsistent or git failed."""


def git_date(iso: str) -> str:
    """ISO-8601 with offset to git's raw ``<epoch> +hhmm`` form (no parsing ambiguity)."""
    when = datetime.fromisoformat(iso)
    if when.utcoffset() is None:
        raise RepoBuildError(f"date without an offset: {iso}")
    return f"{int(when.timestamp())} {when.strftime('%z')}"


def _git_runner(repo: Path, scratch: Path) -> Callable[..., str]:
    """``git(*args, who=, date=, stdin=)`` in ``repo``, with nothing taken from the machine."""
    base_env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(scratch),
        "XDG_CONFIG_HOME": str(scratch),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_TERMINAL_PROMPT": "0",
        "LC_ALL": "C",
        "TZ": "UTC",
    }

    def git(*args: str, who: dict[str, str] | None = None, date: str | None = None,
            stdin: str | None = None) -> str:
        env = dict(base_env)
        if who and date:
            env.update(GIT_AUTHOR_NAME=who["name"], GIT_AUTHOR_EMAIL=who["email"],
                       GIT_COMMITTER_NAME=who["name"], GIT_COMMITTER_EMAIL=who["email"],
                       GIT_AUTHOR_DATE=git_date(date), GIT_COMMITTER_DATE=git_date(date))
        proc = subprocess.run(["git", *args], cwd=repo, env=env, input=stdin,
                              capture_output=True, text=True, encoding="utf-8", check=False)
        if proc.returncode != 0:
            raise RepoBuildError(f"git {' '.join(args)} failed: {proc.stderr.strip()}")
        return proc.stdout

    return git


def _apply(root: Path, commit: dict[str, Any], label: str) -> None:
    for rel, text in (commit.get("write") or {}).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for rel, text in (commit.get("append") or {}).items():
        path = root / rel
        path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")
    for rel, (old, new) in (commit.get("replace") or {}).items():
        path = root / rel
        current = path.read_text(encoding="utf-8")
        if current.count(old) != 1:
            raise RepoBuildError(f"{label}: {rel} does not contain exactly one {old!r}")
        path.write_text(current.replace(old, new), encoding="utf-8")
    for rel in commit.get("delete") or []:
        (root / rel).unlink()


def _last_touched(log: str) -> dict[str, str]:
    """``git log --format=@%cI --name-only`` → each path's newest commit date."""
    times: dict[str, str] = {}
    when = ""
    for line in log.splitlines():
        if line.startswith("@"):
            when = line[1:]
        elif line:
            times.setdefault(line, when)
    return times


def _set_mtimes(root: Path, times: dict[str, str], git_time: str) -> None:
    """Files as their history says (the last commit that touched each, the uncommitted
    changes' own time); ``.git`` at the last git action; a folder at its newest entry."""
    def epoch(iso: str) -> float:
        return datetime.fromisoformat(iso).timestamp()

    for path in sorted(root.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        rel = path.relative_to(root).as_posix()
        if rel == ".git" or rel.startswith(".git/"):
            when = epoch(git_time)
        elif path.is_dir():
            when = max((child.stat().st_mtime for child in path.iterdir()), default=0.0)
        elif rel in times:
            when = epoch(times[rel])
        else:
            raise RepoBuildError(f"{rel}: no commit or uncommitted change wrote this file")
        os.utime(path, (when, when), follow_symlinks=False)
    newest = max(child.stat().st_mtime for child in root.iterdir())
    os.utime(root, (newest, newest))


def build_repo(dest: Path) -> dict[str, Any]:
    """Build the repository in ``dest``; returns commit records for docs and tests."""
    spec = load_yaml("repo.yaml")
    authors = spec["authors"]
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tooleval-git-") as scratch:
        (Path(scratch) / "template").mkdir()
        git = _git_runner(dest, Path(scratch))
        git("init", "-q", "-b", "main", f"--template={Path(scratch) / 'template'}")
        local = authors[spec["local_user"]]
        for key, value in (
            ("core.logAllRefUpdates", "false"),
            ("core.autocrlf", "false"),
            ("commit.gpgSign", "false"),
            ("tag.gpgSign", "false"),
            ("user.name", local["name"]),
            ("user.email", local["email"]),
        ):
            git("config", key, value)
        current = "main"
        shas: dict[int, str] = {}
        records = []
        for commit in spec["commits"]:
            branch = commit["branch"]
            if branch != current:
                git("checkout", "-q", *(["-b", branch, commit["from"]] if "from" in commit
                                        else [branch]))
                current = branch
            _apply(dest, commit, f"commit {commit['n']}")
            who = authors[commit["author"]]
            body = "\n\n" + commit["body"] if commit.get("body") else ""
            git("add", "-A")
            git("commit", "-q", "--no-verify", "-F", "-", who=who, date=commit["date"],
                stdin=commit["subject"] + body + "\n")
            sha = shas[commit["n"]] = git("rev-parse", "HEAD").strip()
            records.append({"n": commit["n"], "sha": sha, "branch": branch, "author": who["name"],
                            "email": who["email"], "date": commit["date"],
                            "subject": commit["subject"]})
        tag = spec["tag"]
        git("checkout", "-q", "main")
        git("tag", "-a", tag["name"], shas[tag["commit"]], "-F", "-",
            who=authors[tag["tagger"]], date=tag["date"], stdin=tag["message"] + "\n")
        # One pack instead of ~200 loose objects: per-case copies get much cheaper.
        git("-c", "pack.threads=1", "repack", "-a", "-d", "-q", "--no-write-bitmap-index")
        git("prune-packed")
        uncommitted = spec.get("uncommitted") or {}
        _apply(dest, {"replace": uncommitted.get("modify")}, "uncommitted")
        _apply(dest, {"write": uncommitted.get("untracked")}, "untracked")
        times = _last_touched(git("log", "--format=@%cI", "--name-only", "main"))
        times.update(dict.fromkeys([*(uncommitted.get("modify") or {}),
                                    *(uncommitted.get("untracked") or {})],
                                   uncommitted.get("mtime")))
        _set_mtimes(dest, times, max(c["date"] for c in [*spec["commits"], tag]))
        refs = git("for-each-ref", "--format=%(objectname) %(refname:short)", "refs/heads")
        heads = {name: sha for sha, name in (line.split() for line in refs.splitlines())}
    return {"commits": records, "branches": heads, "tag": {**tag, "sha": shas[tag["commit"]]}}
