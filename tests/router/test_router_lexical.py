"""The learned lexical cue (router/lexical.py): held-out ranking, deferral, determinism,
the committed model's regeneration, and how the router and ``tooleval check`` count it."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from pytest_tooleval.check.split import dump, make_split
from pytest_tooleval.check.static import _fallback_only, run_check
from pytest_tooleval.router.lexical import (
    MODEL_FILE,
    NONE,
    LexicalModel,
    default_model,
    features,
)
from pytest_tooleval.router.trigger_router import LEARNED_BESIDE, TriggerRouter
from pytest_tooleval.text.normalize import normalize
from scripts.build_lexical_model import Example, build, gather, model_json, train
from tests.router.routing import CATALOGUE
from tests.router.routing import CATALOGUE_NAMES as NAMES

# Written for this test, in no training file (checked below): past-tense recollections with
# no calendar word, a remembered fact, a current-information question, an archive.
HELD_OUT = [
    ("Bora ile tenise hangi gün gitmiştik", "tr", "calendar_list"),
    ("dişçi randevum hangi gündü", "tr", "calendar_list"),
    ("geçen yaz kamp için hangi hafta sonu gitmiştik", "tr", "calendar_list"),
    ("the wifi password for the cabin, what was it", "en", "memory_search"),
    ("kaç derece olacak yarın İzmirde", "tr", "web_search"),
    ("unzip the photos archive", "en", "extract_archive"),
]


@pytest.fixture(scope="module")
def training_texts() -> set[str]:
    return {normalize(s.example.message, s.example.language).text for s in gather()}


def test_the_committed_model_is_what_the_script_builds() -> None:
    assert MODEL_FILE.read_text(encoding="utf-8") == model_json(build()), (
        "router/lexical_model.json is stale: run python scripts/build_lexical_model.py"
    )


@pytest.mark.parametrize(("message", "language", "tool"), HELD_OUT)
def test_ranks_the_right_tool_for_messages_it_never_saw(
    message: str, language: str, tool: str, training_texts: set[str]
) -> None:
    assert normalize(message, language).text not in training_texts
    model = default_model()
    assert model is not None
    votes = model.votes(message, language, NAMES)
    assert votes and votes[0][0] == tool


def test_a_toy_model_generalises_to_an_unseen_phrasing() -> None:
    model = train([
        Example("what is the weather today", "en", ("web_search",)),
        Example("is it going to rain tomorrow", "en", ("web_search",)),
        Example("remind me to call mum", "en", ("reminder_add",)),
        Example("set a reminder for the dentist", "en", ("reminder_add",)),
        Example("thanks a lot", "en", (NONE,)),
    ])
    post = model.posterior("will it rain today", "en")
    assert max(post, key=post.__getitem__) == "web_search"
    post = model.posterior("please remind me about the dentist", "en")
    assert max(post, key=post.__getitem__) == "reminder_add"


def test_below_the_threshold_it_defers_to_the_fallback() -> None:
    model = default_model()
    assert model is not None
    message = "what was the name of that wine we liked in Porto"  # no confident class
    post = model.posterior(message, "en")
    assert max(post.values()) < model.threshold
    assert model.votes(message, "en", NAMES) == []
    strict = LexicalModel.from_json(model_json(model))
    strict.threshold = 1.01  # nothing can reach it
    assert strict.votes("Bora ile tenise hangi gün gitmiştik", "tr", NAMES) == []
    assert model.posterior("xq zv qjq", "en") == {}  # no known feature


def test_training_is_deterministic_whatever_the_order() -> None:
    samples = gather()
    examples = [s.example for s in samples]
    shuffled = examples[:]
    random.Random(7).shuffle(shuffled)
    assert model_json(train(examples)) == model_json(train(shuffled))
    model = LexicalModel.from_json(model_json(train(examples)))
    again = LexicalModel.from_json(model_json(model))
    message = "Bora ile tenise hangi gün gitmiştik"
    assert model.posterior(message, "tr") == again.posterior(message, "tr")


def test_features_cover_words_stems_endings_and_pairs() -> None:
    found = features("Decathlon'a ne zaman gitmiştik", "tr")
    assert {"w:gitmistik", "p:gitmi", "s:tik", "b:ne_zaman", "w:decathlon"} <= set(found)
    assert not any(f.endswith(":12") for f in features("saat 12", "tr"))  # numbers skipped
    # Letter trigrams inside the word, from its second letter; none in words of three.
    assert {"c:itm", "c:tmi", "c:tik", "c:eca"} <= set(found)
    assert not any(f.startswith("c:") for f in features("ne var bu", "tr"))


def test_letter_trigrams_carry_a_spelling_the_model_never_saw_whole() -> None:
    words_only = [
        Example("hatırlatıcı kur yarın için", "tr", ("reminder_add",)),
        Example("hatırlatma ekle akşama", "tr", ("reminder_add",)),
        Example("faturayı listele", "tr", ("search_documents",)),
        Example("faturalar nerede", "tr", ("search_documents",)),
        Example("sağ ol", "tr", (NONE,)),
    ]
    model = train(words_only)
    # "hatrlatcı" (an unseen chat spelling): no word, prefix or ending of it was trained,
    # but its trigrams "atc", "tla", "lat" were.
    unseen = "hatrlatcı kurar mısn"
    assert not {f for f in features(unseen, "tr") if not f.startswith("c:")} & set(model.counts)
    post = model.posterior(unseen, "tr")
    assert max(post, key=post.__getitem__) == "reminder_add"


# A vocabulary no trigger or cue knows, so only the model can route it.
TOY = train([
    Example("zorblat the frobnicator", "en", ("git_status",)),
    Example("is the frobnicator zorblatted", "en", ("git_status",)),
    Example("quuxify my wibble", "en", ("convert_units",)),
    Example("hello there", "en", (NONE,)),
])
TOY_MESSAGE = "please zorblat that frobnicator"


def test_a_learned_vote_takes_a_filler_place_never_a_scored_one() -> None:
    router = TriggerRouter(9, lexical=TOY)
    assert router.score(TOY_MESSAGE, "en", CATALOGUE)[0].get("git_status", 0.0) == 0.0
    routing = router.route(TOY_MESSAGE, "en", CATALOGUE)
    assert routing.tools[0] == "git_status"  # before the look-up fallback
    assert routing.reasons["git_status"][0].startswith("learned cue: p=")
    assert not _fallback_only(routing, ["git_status"])  # a signal, not a filler
    plain = TriggerRouter(9, lexical=False).route(TOY_MESSAGE, "en", CATALOGUE)
    assert routing.tools[1:5] == plain.tools[:4] == [
        "web_search", "search_documents", "memory_search", "calendar_list"]
    # A tool a trigger scored keeps its place ahead of every learned vote; a stray cue
    # (below LEARNED_BESIDE) does not.
    message = "what is 18*1000 in a sandboxed way, and zorblat the frobnicator"
    scores, _ = router.score(message, "en", CATALOGUE)
    ranked = router.route(message, "en", CATALOGUE).tools
    strong = [t for t in ranked if scores.get(t, 0.0) >= LEARNED_BESIDE]
    assert strong == ["calculator"] and ranked[:2] == ["calculator", "git_status"]
    assert 0 < scores["run_python"] < LEARNED_BESIDE  # a stray description cue, passed
    assert "run_python" not in ranked  # nor is it a filler beside calculator: it runs code


def test_a_learned_vote_passes_stray_cues_and_joins_a_weakly_scored_tool() -> None:
    message = "please zorblat that frobnicator list"
    router = TriggerRouter(9, lexical=TOY)
    scores, _ = router.score(message, "en", CATALOGUE)
    assert scores["list_directory"] >= 2 and 0 < scores["calendar_list"] < LEARNED_BESIDE
    ranked = router.route(message, "en", CATALOGUE).tools
    assert ranked[:2] == ["list_directory", "git_status"]  # before the stray "list" cues
    # A vote for a tool that has only a stray cue of its own: it now counts, with the cue.
    weak = train([
        Example("zorblat the frobnicator list", "en", ("calendar_delete",)),
        Example("zorblatted frobnicator listing", "en", ("calendar_delete",)),
        Example("hello there", "en", (NONE,)),
    ])
    assert 0 < scores["calendar_delete"] < LEARNED_BESIDE
    routing = TriggerRouter(9, lexical=weak).route(message, "en", CATALOGUE)
    assert routing.tools[:2] == ["list_directory", "calendar_delete"]
    assert routing.reasons["calendar_delete"][0].startswith("cue description:list")
    assert routing.reasons["calendar_delete"][-1].startswith("learned cue: p=")
    old = TriggerRouter(9, lexical=weak).route(message, "en", CATALOGUE)
    assert old == routing  # deterministic


# Questions about the world, written for this test: the learned cue showed a tool that
# changes the world on each ("how cold will it be tomorrow morning": reminder_add at p 0.81).
ASKED = [
    ("en", "is it going to be clear tomorrow?", "reminder_add"),
    ("en", "IS IT GOING TO BE CLEAR TOMORROW?", "reminder_add"),
    ("en", "how cold will it be tomorrow morning", "reminder_add"),
    ("en", "HOW COLD WILL IT BE TOMORROW MORNING", "reminder_add"),
    ("en", "will it rain tomorrow evening?", "reminder_add"),
    ("en", "how hot will it get tomorrow", "reminder_add"),
    ("en", "is it clear saturday for a hike?", "calendar_add"),
    ("en", "will it be sunny enough for a picnic on saturday", "calendar_add"),
    ("en", "is saturday morning going to be dry?", "calendar_add"),
    ("en", "does the calendar sync with my phone?", "calendar_add"),
    ("en", "should i bring a jacket tonight", "send_message"),
    ("tr", "yarın sabah soğuk olacak mı", "reminder_add"),
    ("tr", "cumartesi yürüyüş için hava açık olur mu?", "calendar_delete"),
    # "you", "we" or "why" in a question about the world
    ("en", "why is my calendar so full on tuesday?", "calendar_add"),
    ("en", "where did we put the tax documents?", "extract_archive"),
    ("en", "when are you free to talk tomorrow?", "reminder_add"),
]
# A request put as a question to the assistant, a suggestion, or after a question keeps the
# learned vote that brings its tool (without the learned cue none of them shows it).
ASKED_OF_YOU = [
    ("en", "will u pop the dentist in for tuesday 3pm", "calendar_add"),
    ("en", "do you mind popping yoga in for saturday 10am?", "calendar_add"),
    ("en", "how about a 7am gym thing tomorrow", "reminder_add"),
    ("en", "what about a nudge at 6 for the bins", "reminder_add"),
    ("en", "what about dentist tuesday 3pm, pop it in", "calendar_add"),
    ("tr", "cumartesi 10'da yoga, ajandaya işler misin?", "calendar_add"),
    # a suggestion, or what we do, put as a question
    ("en", "why not pop the dentist in for tuesday 3pm?", "calendar_add"),
    ("en", "WHY NOT POP YOGA IN FOR SATURDAY 10AM?", "calendar_add"),
    ("en", "why not a nudge at 6 for the bins?", "reminder_add"),
    ("en", "should we pencil in yoga for saturday 10am?", "calendar_add"),
    ("en", "do we need to pop yoga in for saturday 10am?", "calendar_add"),
    ("en", "what if we popped yoga in for saturday 10am", "calendar_add"),
    ("tr", "cumartesi 10'da yogayı ajandaya koyalım mı?", "calendar_add"),
    ("tr", "cumartesi 10'da yogayı ajandaya koysak mı?", "calendar_add"),
    ("tr", "cumartesi 10'da yogayı ajandaya işlesen olur mu?", "calendar_add"),
    ("tr", "cumartesi 10'da yoga ajandaya işlensin mi?", "calendar_add"),
    # asking whether it may be done, or why we don't
    ("en", "is it possible to put yoga in the calendar for saturday at 10?", "calendar_add"),
    ("en", "IS IT POSSIBLE TO PUT YOGA IN THE CALENDAR FOR SATURDAY AT 10?", "calendar_add"),
    ("en", "is there a way to get a nudge at 6 for the bins?", "reminder_add"),
    ("en", "is it possible to get a nudge at 6 for the bins?", "reminder_add"),
    ("en", "is there any way to pop yoga in for saturday 10am?", "calendar_add"),
    ("en", "why don't we put the dentist in the calendar for tuesday at 3?", "calendar_add"),
]


# Questions about a thing that exists, written for this test: a noun trigger showed the tool
# that creates, sends, saves or deletes it ("was my message to kaan delivered?": send_message).
EXISTING = [
    ("en", "is the meeting with kaan still in the calendar?", "calendar_add"),
    ("en", "is the dentist appointment still in my calendar?", "calendar_add"),
    ("en", "IS THE DENTIST APPOINTMENT STILL IN MY CALENDAR?", "calendar_add"),
    ("en", "who is coming to the meeting on monday?", "calendar_add"),
    ("en", "WHO IS COMING TO THE MEETING ON MONDAY?", "calendar_add"),
    ("en", "is there a meeting with ayse tomorrow?", "calendar_add"),
    ("en", "was my message to kaan delivered?", "send_message"),
    ("en", "WAS MY MESSAGE TO KAAN DELIVERED?", "send_message"),
    ("en", "did the text to mom go through?", "send_message"),
    ("en", "did the message to the landlord get sent?", "send_message"),
    ("en", "what was in the message I sent to kaan?", "send_message"),
    ("en", "did the reminder for the dentist go off?", "reminder_add"),
    ("en", "when does my reminder for the vet go off?", "reminder_add"),
    ("en", "do I have a reminder for the car insurance?", "reminder_add"),
    ("en", "should I get a reminder for this?", "reminder_add"),  # advice, not a request
    ("en", "did I save kaan's new address?", "memory_save"),
    ("en", "what did I save about the wifi password?", "memory_save"),
    ("en", "was the old report deleted?", "delete_file"),
    ("en", "is the draft file still there or did it get deleted?", "delete_file"),
    ("en", "which meetings did I cancel last week?", "calendar_delete"),
    ("en", "was the dentist appointment cancelled?", "calendar_delete"),
    ("en", "did the backup zip get made?", "create_archive"),
    ("en", "where did the report file get moved to?", "move_file"),
    ("en", "has my message to the landlord been delivered?", "send_message"),
    ("en", "HAS THE OLD DRAFT BEEN DELETED?", "delete_file"),
    ("en", "have i texted ayse today?", "send_message"),
    ("en", "has the yoga class been cancelled?", "calendar_delete"),
    ("tr", "dişçi randevusu takvimde duruyor mu?", "calendar_add"),
    ("tr", "DİŞÇİ RANDEVUSU TAKVİMDE DURUYOR MU?", "calendar_add"),
    ("tr", "disci randevusu takvimde duruyor mu", "calendar_add"),
    ("tr", "yarınki toplantı hâlâ geçerli mi?", "calendar_add"),
    ("tr", "kaan'a attığım mesaj gitti mi?", "send_message"),
    ("tr", "KAAN'A ATTIĞIM MESAJ GİTTİ Mİ?", "send_message"),
    ("tr", "kaana attigim mesaj gitti mi", "send_message"),
    ("tr", "ilaç hatırlatması kuruldu mu?", "reminder_add"),
    ("tr", "ilac hatirlatmasi kuruldu mu", "reminder_add"),
    ("tr", "dünkü hatırlatma çaldı mı?", "reminder_add"),
    ("tr", "cuma günkü toplantı iptal edildi mi?", "calendar_delete"),
    ("tr", "eski rapor silindi mi?", "delete_file"),
    ("tr", "kaan'ın adresi kayıtlı mı?", "memory_save"),
    # "acaba", "ki" after the particle: still the question
    ("tr", "ilaç hatırlatıcısı sabah çaldı mı acaba", "reminder_add"),
    ("tr", "İLAÇ HATIRLATICISI SABAH ÇALDI MI ACABA", "reminder_add"),
    ("tr", "ev sahibine yazdığım mesaj gitti mi ki", "send_message"),
    # "sence", "sizce" too: "-sem mi" asks advice on what the speaker may do, no request
    ("tr", "şu dosyayı silsem mi sence", "delete_file"),
    ("tr", "ŞU DOSYAYI SİLSEM Mİ SENCE", "delete_file"),
    ("tr", "kaan'a mesaj atsam mı sizce", "send_message"),
    ("en", "who sent me that message?", "send_message"),
    ("en", "WHO SENT ME THAT MESSAGE?", "send_message"),
    ("en", "what time did the reminder ping me yesterday?", "reminder_add"),
]
# Requests put as questions keep that tool: asking whether it may be done, why we don't, a
# suggestion, a question put to the assistant, a request after the question in its clause.
MAY_BE_DONE = [
    ("en", "is there any way to set a reminder for 5?", "reminder_add"),
    ("en", "IS THERE ANY WAY TO SET A REMINDER FOR 5?", "reminder_add"),
    ("en", "is it possible to add the dentist on friday at 3?", "calendar_add"),
    ("en", "IS IT POSSIBLE TO ADD THE DENTIST ON FRIDAY AT 3?", "calendar_add"),
    ("en", "is it possible to cancel the dentist on friday?", "calendar_delete"),
    ("en", "is it okay to text kaan that I'm running late?", "send_message"),
    ("en", "IS IT OKAY TO TEXT KAAN THAT I'M RUNNING LATE?", "send_message"),
    ("en", "is it fine to text kaan now?", "send_message"),
    ("en", "is it alright to save my gate code as 4471?", "memory_save"),
    ("en", "is it ok to delete the old draft file?", "delete_file"),
    ("en", "is there any chance you could text kaan that I'm late?", "send_message"),
    ("en", "why don't you text kaan that I'm late?", "send_message"),
    ("en", "WHY DON'T YOU TEXT KAAN THAT I'M LATE?", "send_message"),
    ("en", "why dont u text kaan that im late", "send_message"),
    ("en", "how about a reminder at 7?", "reminder_add"),
    ("en", "will you remind me to call mom at 6?", "reminder_add"),
    ("en", "should we text the group that the game is off?", "send_message"),
    ("en", "is the dentist in the calendar if not add it", "calendar_add"),
    ("en", "when is the dentist remind me an hour before", "reminder_add"),
    ("en", "what's on friday and can you add the dentist at 3", "calendar_add"),
    ("tr", "dişçi için hatırlatma kurabilir misin?", "reminder_add"),
    ("tr", "DİŞÇİ İÇİN HATIRLATMA KURABİLİR MİSİN?", "reminder_add"),
    ("tr", "disci icin hatirlatma kurabilir misin", "reminder_add"),
    ("tr", "kaan'a mesaj atsak mı?", "send_message"),
    ("tr", "KAAN'A MESAJ ATSAK MI?", "send_message"),
    ("tr", "kaana mesaj atsak mi", "send_message"),
    ("tr", "mesaj atılsın mı?", "send_message"),
    ("tr", "cuma 3'te dişçiyi takvime eklemek mümkün mü?", "calendar_add"),
    ("tr", "cuma 3te disciyi takvime eklemek mumkun mu", "calendar_add"),
    ("tr", "saat 7'ye hatırlatma kurulabilir mi?", "reminder_add"),
    ("tr", "SAAT 7'YE HATIRLATMA KURULABİLİR Mİ?", "reminder_add"),
    ("tr", "eski raporu silsek mi?", "delete_file"),
    ("tr", "cuma toplantısını iptal edelim mi?", "calendar_delete"),
    ("tr", "toplantı takvimde mi değilse ekle", "calendar_add"),
    # a polite passive aorist asks for it: "can a message be sent?"
    ("tr", "ayşe'ye mesaj atılır mı?", "send_message"),
    ("tr", "AYŞE'YE MESAJ ATILIR MI?", "send_message"),
    ("tr", "yarın 8'e bir hatırlatma kurulur mu?", "reminder_add"),
    ("tr", "pazartesi 10'a yogayı takvime eklenir mi?", "calendar_add"),
    ("tr", "eski taslak dosyası silinir mi?", "delete_file"),
    ("tr", "yarın 9'a bir hatırlatma kursak mı acaba", "reminder_add"),
    ("tr", "ayşe'ye mesaj atılır mı acaba?", "send_message"),
    ("tr", "eski raporu silsek mi sence", "delete_file"),
    ("tr", "toplantıyı yarına alsam iyi olur, ekler misin", "calendar_add"),
    # a question run on into a request, no question mark: one clause that opens as one
    ("en", "is the old invoice still in downloads delete it", "delete_file"),
    ("en", "IS THE OLD INVOICE STILL IN DOWNLOADS DELETE IT", "delete_file"),
    ("en", "where is ayse send her a text asking", "send_message"),
    ("en", "when the call ends text ayse the summary", "send_message"),
    ("en", "when ayse replies save her new number", "memory_save"),
    ("en", "is the yoga class still on cancel it", "calendar_delete"),
    ("en", "whats in todo.txt write a short version to short.txt", "write_file"),
    ("en", "where is invoice.pdf move it to paid", "move_file"),
    ("en", "is it ayses birthday today send her hbd", "send_message"),
]


@pytest.mark.parametrize(("language", "message", "tool"), EXISTING)
def test_a_question_about_an_existing_thing_shows_no_tool_that_makes_it(
    language: str, message: str, tool: str, known_texts: set[str]
) -> None:
    assert normalize(message, language).text not in known_texts
    assert tool not in TriggerRouter(9).route(message, language, CATALOGUE).tools


@pytest.mark.parametrize(("language", "message", "tool"), MAY_BE_DONE)
def test_a_request_put_as_a_question_shows_its_tool(
    language: str, message: str, tool: str, known_texts: set[str]
) -> None:
    assert normalize(message, language).text not in known_texts
    assert tool in TriggerRouter(9).route(message, language, CATALOGUE).tools


@pytest.mark.parametrize(("language", "message", "tool"), ASKED)
def test_a_question_about_the_world_gets_no_vote_for_a_tool_that_changes_it(
    language: str, message: str, tool: str, known_texts: set[str]
) -> None:
    assert normalize(message, language).text not in known_texts
    assert tool not in TriggerRouter(9).route(message, language, CATALOGUE).tools


@pytest.mark.parametrize(("language", "message", "tool"), ASKED_OF_YOU)
def test_a_request_put_as_a_question_keeps_its_learned_vote(
    language: str, message: str, tool: str, known_texts: set[str]
) -> None:
    assert normalize(message, language).text not in known_texts
    assert tool not in TriggerRouter(9, lexical=False).route(message, language, CATALOGUE).tools
    routing = TriggerRouter(9).route(message, language, CATALOGUE)
    assert routing.reasons[tool][-1].startswith("learned cue: p=")


def test_the_training_set_never_reads_a_frozen_half(tmp_path: Path) -> None:
    folder = tmp_path / "router-eval-new"
    (folder / "en").mkdir(parents=True)
    cases = [
        {"name": f"c{i}", "category": "tool", "group": "web",
         "steps": [{"message": f"unique question number {i} about the weather",
                    "expect": ["web_search"]}]}
        for i in range(8)
    ]
    (folder / "en" / "web.json").write_text(
        json.dumps({"name": "t", "language": "en", "requires": ["web_search"], "cases": cases}),
        encoding="utf-8",
    )
    split = make_split(folder)
    (folder / "split.toml").write_text(dump(split), encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    tuning = {k.split("::")[1] for k, e in split.entries.items() if e.half == "tuning"}
    assert 0 < len(tuning) < 8
    got = {s.unit.split("::")[1] for s in gather(tmp_path, ("router-eval-new",))}
    assert got == tuning
    # Once its frozen half is spent (measured and its misses read), both halves train.
    spent = gather(tmp_path, ("router-eval-new",), spent={"router-eval-new"})
    assert {s.unit.split("::")[1] for s in spent} == {f"c{i}" for i in range(8)}
    assert {s.half for s in spent} == {"tuning", "frozen"}


def test_only_the_spent_evaluation_sets_are_read_whole() -> None:
    from scripts.build_lexical_model import SOURCES, SPENT

    assert sorted(SPENT) == [f"evals/router/{n}" for n in range(1, 6)]
    assert set(SOURCES) >= SPENT
    # Set 5's frozen half was measured once (docs/dev/router.md) and its misses read: it is
    # spent, both halves train. The sixth blind set is never a source.
    assert not any(s.startswith("evals/router/6") for s in SOURCES)


def test_check_counts_learned_votes_as_signal(tmp_path: Path) -> None:
    path = tmp_path / "toy.json"
    path.write_text(json.dumps({
        "name": "toy", "language": "en", "requires": ["git_status"],
        "cases": [{"name": "c1", "category": "tool", "steps": [
            {"message": TOY_MESSAGE, "expect": ["git_status"]}]}],
    }), encoding="utf-8")
    with_model = run_check([path], router=TriggerRouter(9, lexical=TOY))
    without = run_check([path], router=TriggerRouter(9, lexical=False))
    assert with_model.ok, with_model.failures
    assert with_model.recall.hits == 1 and with_model.fallback_only.hits == 0
    assert without.recall.hits == 0  # without it, nothing brings git_status into the nine
    assert TriggerRouter(9).describe()["lexical"] is True
