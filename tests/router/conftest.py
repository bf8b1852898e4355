"""What the router tests share: every message the lexical model is trained on, so that a
sentence written for a test can be checked to be new."""

from __future__ import annotations

import pytest

from pytest_tooleval.text.normalize import normalize
from scripts.build_lexical_model import gather


@pytest.fixture(scope="session")
def known_texts() -> set[str]:
    """Every training message, normalised (a test sentence must be none of them)."""
    return {normalize(s.example.message, s.example.language).text for s in gather()}
