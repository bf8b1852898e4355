"""The stemmer switch: Snowball (Turkish, English) against the router's light stem."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_tooleval.cli import main
from pytest_tooleval.cli.route import main as route_main
from pytest_tooleval.router.cues import CueIndex
from pytest_tooleval.router.trigger_router import TriggerRouter
from pytest_tooleval.text.normalize import normalize
from pytest_tooleval.text.stem import check_stemmer, light_stem, snowball_stem
from pytest_tooleval.tools.base import ToolSpec

pytest.importorskip("Stemmer", reason="PyStemmer is needed for the snowball stemmer")


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("faturalarımızı", "fatura"),  # plural + possessive + accusative
        ("kitabımı", "kitap"),  # consonant alternation b → p, no table needed
        ("kitaplarımızdan", "kitap"),
        ("ağacı", "agac"),  # ğ kept for the stemmer, folded afterwards
        ("şifreyi", "sifre"),
        ("toplantılarım", "toplanti"),
        ("gideceğim", "gidecek"),
    ],
)
def test_turkish_morphology(word: str, stem: str) -> None:
    assert snowball_stem(word, "tr") == stem


def test_the_turkish_stemmer_needs_the_real_letters() -> None:
    # The reason stems are taken before the ASCII fold: folded text defeats vowel harmony.
    assert snowball_stem("faturalarımı", "tr") == "fatura"
    assert snowball_stem("dosyaları", "tr") == "dosya"
    assert snowball_stem("dosyalari", "tr") != "dosya"
    assert normalize("FATURALARIMI").lower_words == ("faturalarımı",)  # Turkish I → ı
    assert normalize("Faturaların 💵", "tr").lower_words == ("faturaların", "dolar")


def test_english_and_light_stems() -> None:
    assert snowball_stem("searching", "en") == "search"
    assert snowball_stem("meetings", "en") == "meet"
    assert light_stem("meetings") == "meeting" and light_stem("issues") == "issu"
    assert snowball_stem("xyzq", "zz") == "xyzq"  # no Snowball for the language: unchanged


def _trigger_file(tmp_path: Path) -> Path:
    path = tmp_path / "tr.yaml"
    path.write_text("language: tr\ntools:\n  book_shop: [kitap]\n  tree_care: [ağaç]\n",
                    encoding="utf-8")
    return path


CATALOGUE = [ToolSpec(name, "", {"type": "object"}, "inline") for name in
             ("book_shop", "tree_care", "other_tool")]


@pytest.mark.parametrize(
    ("message", "tool"),
    [("kitaplarımızdan birini bul", "book_shop"), ("kitabımı ara", "book_shop"),
     ("bahçedeki ağacı budamak", "tree_care")],
)
def test_whole_word_triggers_match_inflected_forms_only_with_snowball(
    tmp_path: Path, message: str, tool: str
) -> None:
    files = [_trigger_file(tmp_path)]
    light = TriggerRouter(trigger_files=files, stemmer="light", use_cues=False)
    snowball = TriggerRouter(trigger_files=files, stemmer="snowball", use_cues=False)
    assert light.score(message, "tr", CATALOGUE)[0].get(tool, 0) == 0
    scores, reasons = snowball.score(message, "tr", CATALOGUE)
    assert scores[tool] > 0 and any("trigger" in r for r in reasons[tool])
    # The other tools stay at zero: a stem is no wildcard.
    assert all(scores.get(t, 0) == 0 for t in ("other_tool",))


def test_snowball_cues_are_whole_stems_not_prefixes() -> None:
    catalogue = [ToolSpec("take_notes", "Save the user's notes.", {}, "inline"),
                 ToolSpec("kitap_ara", "", {}, "inline")]
    light = CueIndex(catalogue, set(), stemmer="light")
    snowball = CueIndex(catalogue, set(), stemmer="snowball")

    def tools(index: CueIndex, text: str) -> set[str]:
        n = normalize(text)
        return {cue.tool for cue, _ in index.match(n.words, n.lower_words)}

    # "notebook" starts with the cue "note" but is another word.
    assert tools(light, "my notebook") == {"take_notes"}
    assert tools(snowball, "my notebook") == set()
    assert tools(snowball, "my notes from monday") == {"take_notes"}
    # Consonant alternation: kitabımı → kitap, which the six-letter prefix never sees.
    assert tools(light, "kitabımı") == set()
    assert tools(snowball, "kitabımı") == {"kitap_ara"}


def test_unknown_stemmer_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown stemmer"):
        check_stemmer("porter")
    with pytest.raises(ValueError, match="unknown stemmer"):
        TriggerRouter(stemmer="porter")


def test_command_lines_take_the_switch(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert route_main(["kitabımı bul", "--stemmer", "snowball"]) == 0
    assert "kitabımı bul" in capsys.readouterr().out
    assert main(["check", str(tmp_path), "--stemmer", "porter"]) == 2
    describe = TriggerRouter(stemmer="snowball").describe()
    assert describe["stemmer"] == "snowball"


def test_snowball_routing_does_not_depend_on_the_hash_seed() -> None:
    """A word's stems (one per cue language) were a set, walked in hash order; the first
    cue to fire for a tool decided its weight, so "times" gave calendar_list 0.5 under
    one PYTHONHASHSEED and 0.0625 under another."""
    import os
    import subprocess
    import sys

    probe = (
        "import json; from pytest_tooleval.router.trigger_router import TriggerRouter; "
        "from pytest_tooleval.router.catalogue import builtin_specs; "
        "print(json.dumps(TriggerRouter(stemmer='snowball').score("
        "'what is 88 times 13.5 plus 106.40', 'en', list(builtin_specs()))))"
    )
    root = Path(__file__).resolve().parents[2]
    outputs = {
        subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                       check=True, cwd=root,
                       env={**os.environ, "PYTHONHASHSEED": seed,
                            "PYTHONPATH": str(root)}).stdout
        for seed in ("0", "1", "2", "3")
    }
    assert len(outputs) == 1, outputs
