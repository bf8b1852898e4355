"""A case's identity: its content hash (``case_hash``), the same for a run, a journal and an
export, and the hash of a set of cases (``selection.case_set_hash``, the journal's)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_tooleval.cases.model import Case, CaseFile


def json_digest(data: Any) -> str:
    """The SHA-256 of ``data`` as JSON with sorted keys (what JSON cannot hold, as text):
    the case hash, a run's identity hash and the response cache's keys."""
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def content_hash(case_file: CaseFile, case: Case) -> str:
    """The case's ``case_hash``: a short, stable hash of what decides its outcome, the case
    itself and its file's shared parts."""
    content = {
        "case": case.model_dump(mode="json"),
        "language": case_file.language,
        "tools": [tool.model_dump(mode="json") for tool in case_file.tools],
        "world": case_file.world.model_dump(mode="json") if case_file.world else None,
    }
    return json_digest(content)[:16]


def case_set_hash(cases: Iterable[tuple[str, str | None]]) -> str:
    """The hash of a set of cases, from each case's (node id, content hash)."""
    pairs = sorted((nodeid, digest or "") for nodeid, digest in cases)
    return hashlib.sha256(json.dumps(pairs).encode("utf-8")).hexdigest()[:16]
