"""The router's fast paths give what the plain computations give: normalisation's ASCII
fold and pattern pre-checks, the trigger sets' per-word memos, the shared cue tables and
the learned cue's column sums. Each is compared with the straightforward computation it
replaced, on generated text and on every message of the repository's corpus."""

from __future__ import annotations

import math
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_tooleval.cases.load import parse_text
from pytest_tooleval.check.files import collect_files
from pytest_tooleval.router.catalogue import builtin_specs
from pytest_tooleval.router.cues import CueIndex
from pytest_tooleval.router.lexical import SCALE_EXPONENT, default_model, features
from pytest_tooleval.router.patterns import TriggerSet
from pytest_tooleval.router.trigger_router import TriggerRouter
from pytest_tooleval.text import normalize as norm
from pytest_tooleval.tools.base import ToolSpec
from tests.router.routing import CATALOGUE, REGISTERS, ROUTER

ROOT = Path(__file__).resolve().parents[2]
# Letters, digits, the marks the patterns look for, Turkish and accented letters, emoji.
ALPHABET = st.sampled_from(list(
    "abcdefvxyzABCDEFIVXZ0123456789 _.-/:()%*+^=×÷−–'’`\t\n"
    "çğıöşüÇĞİÖŞÜéèêñÅåﬁ①²\u0307\u0301\u200d\ufe0f➕➖✖➗😀👍🏽🇹🇷"
))
TEXT = st.text(ALPHABET, max_size=40) | st.sampled_from([
    "https://example.com/a", "www.Example.org", "haber.example.tr/egitim/x", "v0.4.0",
    "V2.1 çıktı", "abc1234 ile", "deadbeef1", "_safe_load()", "loadConfig", "parse()",
    "MAX_RETRIES", "budget_2025.xlsx", "18*1000", "3 x 4", "%18", "7 − 2",
])


def _fold_reference(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    text = norm.turkish_lower(text).translate(norm._TURKISH_FOLD)
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return norm._WHITESPACE.sub(" ", unicodedata.normalize("NFC", stripped)).strip()


def _flags_reference(text: str) -> tuple[bool, ...]:
    return (
        norm._DIGIT.search(text) is not None,
        norm._OPERATOR.search(text) is not None or any(c in norm.OPERATOR_EMOJI for c in text),
        norm._URL.search(text) is not None,
        norm._VERSION.search(text) is not None,
        norm._COMMIT_ID.search(text) is not None,
        norm._IDENTIFIER.search(text) is not None,
    )


@settings(max_examples=400, deadline=None)
@given(TEXT)
def test_fold_and_flags_equal_the_plain_computation(text: str) -> None:
    assert norm.fold(text) == _fold_reference(text)
    assert norm._flags(text) == _flags_reference(text)
    hinted = text.translate(norm._hints(None))
    if hinted.isascii():
        assert norm._PICTOGRAPHS.sub(" ", hinted) == hinted


def test_no_ascii_character_is_a_pictograph_and_ascii_folds_to_lowercase() -> None:
    for code in range(128):
        char = chr(code)
        assert norm._PICTOGRAPHS.search(char) is None
        assert norm.fold(f"a{char}B") == _fold_reference(f"a{char}B")


def _corpus_messages() -> list[tuple[str, str]]:
    found = []
    for path in collect_files([ROOT / "benchmarks", ROOT / "scenarios"]):
        data = parse_text(path.read_text(encoding="utf-8-sig"), path)
        for case in data["cases"]:
            for step in case["steps"]:
                found.append((step["message"], data.get("language", "en")))
    return found


@pytest.fixture(scope="module")
def messages() -> list[tuple[str, str]]:
    return _corpus_messages()


def test_fold_and_flags_on_every_corpus_message(messages: list[tuple[str, str]]) -> None:
    assert len(messages) > 500
    for message, _ in messages:
        assert norm.fold(message) == _fold_reference(message)
        assert norm._flags(message) == _flags_reference(message)


def _candidates_reference(
    trigger_set: TriggerSet, words: tuple[str, ...], stems: tuple[str, ...] | None
) -> list[tuple[int, int, str, tuple[tuple[str, bool], ...]]]:
    """The matching of ``TriggerSet._candidates`` without the per-word memos."""
    found = []
    for start, token in enumerate(words):
        patterns = list(trigger_set._exact.get(token, ()))
        for size in trigger_set._stem_sizes:
            if size > len(token):
                break
            patterns.extend(trigger_set._stem.get(token[:size], ()))
        if stems:
            stem = stems[start]
            patterns.extend(trigger_set._by_stem.get(stem, ()))
            for size in trigger_set._stem_sizes:
                if size > len(stem):
                    break
                patterns.extend(trigger_set._stem.get(stem[:size], ()))
            patterns = list({id(p): p for p in patterns}.values())
        for pattern in patterns:
            end = pattern.match_at(words, start, stems)
            if end:
                found.append((start, end, " ".join(words[start:end]), pattern.elements))
    return found


@pytest.mark.parametrize("stemmer", ["light", "snowball"])
def test_memoised_candidates_equal_the_plain_look_up(
    messages: list[tuple[str, str]], stemmer: str
) -> None:
    from pytest_tooleval.text.stem import has_snowball, snowball_stem

    router = TriggerRouter(stemmer=stemmer)
    for _ in range(2):  # the second pass is served from the memos
        for message, language in messages[::3]:
            text = norm.normalize(message, language)
            for set_language, trigger_set in router.sets.items():
                stems = None
                if stemmer == "snowball" and text.lower_words and has_snowball(set_language):
                    stems = tuple(snowball_stem(w, set_language) for w in text.lower_words)
                    if not trigger_set._by_stem_ready:
                        trigger_set._index_stems()
                got = [(m.start, m.end, m.text, m.pattern.elements)
                       for m in trigger_set._candidates(text.words, stems)]
                assert got == _candidates_reference(trigger_set, text.words, stems)
                respelt = trigger_set.fuzzy_variants(text.words)
                trigger_set._respell_memo.clear()
                assert respelt == trigger_set.fuzzy_variants(text.words)


def test_shared_tool_cues_give_the_same_index() -> None:
    router = TriggerRouter()
    builtins = list(builtin_specs())
    extra = ToolSpec("kargo_takip", "Kargo takip numarasıyla gönderinin durumunu sorgular",
                     {"type": "object", "properties": {}}, "inline:x")
    shared: dict = {}
    args = (router.stop_words, router.false_friends, router.description_stop_words)
    for catalogue in (builtins, [*builtins, extra], [extra, *builtins[:5]]):
        fresh = CueIndex(catalogue, *args)
        memo = CueIndex(catalogue, *args, tool_cues=shared)
        assert dict(memo._exact) == dict(fresh._exact)
        assert dict(memo._stem) == dict(fresh._stem)
    assert ("kargo_takip", extra.description) in shared


def _posterior_reference(message: str, language: str) -> dict[str, float]:
    model = default_model()
    assert model is not None
    known = [f for f in features(message, language) if f in model.counts]
    if not known:
        return {}
    logs = [base * len(known) for base in model._base]
    for feature in known:
        flat = model.counts[feature]
        for i in range(0, len(flat), 2):
            logs[flat[i]] += math.log(flat[i + 1] + model.alpha) - math.log(model.alpha)
    scale = len(known) ** -SCALE_EXPONENT
    top = max(logs)
    weights = [math.exp((value - top) * scale) for value in logs]
    total = sum(weights)
    return {name: w / total for name, w in zip(model.classes, weights, strict=True)}


def test_posterior_equals_the_plain_sum(messages: list[tuple[str, str]]) -> None:
    model = default_model()
    if model is None:
        pytest.skip("no lexical model in this install")
    for message, language in [*messages, ("", "en"), ("zzzz qqqq", "en")]:
        assert model.posterior(message, language) == _posterior_reference(message, language)


def test_the_ranking_keys_in_one_pass_equal_rank(messages: list[tuple[str, str]]) -> None:
    from pytest_tooleval.router import ranking as rk
    from pytest_tooleval.router import trigger_router as tr

    router = TriggerRouter()
    extra = ToolSpec("kargo_takip", "Kargo takip numarasıyla gönderinin durumunu sorgular",
                     {"type": "object", "properties": {}}, "inline:x")
    catalogue = [*builtin_specs(), extra]
    names = [spec.name for spec in catalogue]
    seen_kinds = set()
    for message, language in messages[::4]:
        scores, _ = router.score(message, language, catalogue)
        families = rk.family_best(scores)
        learned = router.learned(message, language, catalogue, scores)
        ranking = {**scores, **{n: scores.get(n, 0.0) + tr.LEARNED_WEIGHT * p
                                for n, p in learned.items()}}
        for ranked_by in (ranking, scores):  # scores alone: a vote without its weight
            keys = rk.ranks(names, ranked_by, families, learned)
            assert keys == {n: rk.rank(n, ranked_by, families, learned) for n in names}
            seen_kinds |= {key[1] for key in keys.values()}
    assert seen_kinds == {0, 1, 2, 3, 4}  # every branch of the key was compared


# One job's Turkish registers (routing.REGISTERS), routed many times.
def test_route_is_fast() -> None:
    import time

    messages = [f"{text} {n}" for n in range(60) for text in REGISTERS.values()][:600]
    started = time.perf_counter()
    for message in messages:
        ROUTER.route(message, "tr", CATALOGUE)
    assert time.perf_counter() - started < 1.0

