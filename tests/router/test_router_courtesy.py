"""Messages that ask for nothing (router/courtesy.py): greetings, thanks and closings get
no learned vote and route as without the model, a request after them keeps its vote; and
on the corpus's steps that expect no tool, the learned cue shows no more side-effecting
tools than the rules alone. The sentences are new: none is in the corpus or an evaluation
set."""

from __future__ import annotations

from functools import partial

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_tooleval.router.courtesy import is_courtesy
from pytest_tooleval.router.trigger_router import TriggerRouter
from pytest_tooleval.text.normalize import normalize
from tests.router.routing import CATALOGUE, PLAIN, ROUTER, shown

# The tools shown, each call by a router of its own (TriggerRouter(9)).
_route = partial(shown, fresh=True)


@pytest.mark.parametrize(("message", "language"), [
    ("tamam, teşekkürler, şimdilik yeter", "tr"),
    ("eyvallah, başka bir şey yok", "tr"),
    ("great, thanks so much, that's all for now", "en"),
    # greetings: the requests of evaluation set 5 often open with one
    ("merhaba", "tr"),
    ("MERHABA NASILSIN", "tr"),
    ("slm nbr", "tr"),
    ("napıyon gardaş", "tr"),
    ("iyi akşamlar hocam", "tr"),
    ("hi there!", "en"),
    ("How are you doing today?", "en"),
    ("good morning, hope you're well", "en"),
])
def test_courtesy_only_messages_get_no_learned_vote(message: str, language: str) -> None:
    router = TriggerRouter(9)
    assert is_courtesy(normalize(message, language).words)
    assert router.learned(message, language, CATALOGUE, {}) == {}


@pytest.mark.parametrize(("message", "language"), [
    ("thanks, and what's the weather in Izmir tomorrow", "en"),
    ("sağ ol, bir de yarın hava nasıl olacak", "tr"),
    ("merhaba, 250 dolar kaç TL", "tr"),
    ("hi, whats the weather in izmir today", "en"),
])
def test_a_request_after_thanks_is_not_courtesy(message: str, language: str) -> None:
    assert not is_courtesy(normalize(message, language).words)
    assert "web_search" in _route(message, language)


GREETINGS = {
    "tr": ["merhaba", "selam", "slm", "mrb", "nasılsın", "naber", "günaydın", "iyi", "akşamlar",
           "hocam", "kolay", "gelsin", "sağ", "ol", "teşekkürler"],
    "en": ["hi", "hello", "hey", "there", "how", "are", "you", "doing", "today", "good",
           "morning", "thanks", "bye"],
}


REQUESTS = {"tr": ["dolar", "hatırlat", "takvimime", "zipi"], "en": ["weather", "remind", "zip"]}


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["tr", "en"]), st.data(), st.sampled_from(["plain", "caps", "punct"]))
def test_greetings_in_any_order_and_register_get_no_learned_vote(
    language: str, data: st.DataObject, register: str
) -> None:
    words = data.draw(st.lists(st.sampled_from(GREETINGS[language]), min_size=1, max_size=5))
    message = " ".join(words)
    if register == "caps":
        message = message.replace("i", "İ").upper() if language == "tr" else message.upper()
    elif register == "punct":
        message = ", ".join(words) + "!! 🙂"
    assert is_courtesy(normalize(message, language).words)
    assert TriggerRouter(9).learned(message, language, CATALOGUE, {}) == {}
    request = data.draw(st.sampled_from(REQUESTS[language]))
    assert not is_courtesy(normalize(f"{message} {request}", language).words)


CHIT_CHAT = [
    ("thank you, that was helpful", "en"),
    ("sağ ol, bu kadar", "tr"),
    ("thanks, that's all", "en"),
]


@pytest.mark.parametrize(("message", "language"), CHIT_CHAT)
def test_chit_chat_gets_no_vote_and_routes_as_without_the_model(
    message: str, language: str
) -> None:
    # The router gives a thanks or a closing no learned vote (router/courtesy.py): since
    # evaluation set 4 was spent into the training set the model alone leans towards
    # web_search on "sağ ol, bu kadar" (p 0.44, "kadar" from the "ne kadar" look-ups).
    router = TriggerRouter(9)
    assert router.learned(message, language, CATALOGUE, {}) == {}
    with_model = TriggerRouter(9).route(message, language, CATALOGUE)
    without = TriggerRouter(9, lexical=False).route(message, language, CATALOGUE)
    assert with_model == without


def test_on_the_corpus_irrelevance_steps_the_learned_cue_shows_no_more_harmful_tools() -> None:
    """The corpus's steps that expect no tool: the learned cue (beside stray scores, with
    trigrams) and the saved-thing class must not bring in more side-effecting tools than
    the router without the learned cue shows."""
    from pytest_tooleval.tools.names import SIDE_EFFECTING_BUILTINS
    from scripts.build_lexical_model import iter_cases

    steps = [
        (step.message, found.case_file.language)
        for found in iter_cases(sources=("benchmarks",))
        for step in found.case.steps
        if not step.expected_tools
    ]
    assert len(steps) >= 100

    def harmful(router: TriggerRouter) -> int:
        return sum(
            tool in SIDE_EFFECTING_BUILTINS
            for message, language in steps
            for tool in router.route(message, language, CATALOGUE).tools
        )

    assert harmful(ROUTER) <= harmful(PLAIN)


THANKED = [  # what a thanks is for was done: (language, message, the tool it showed)
    ("en", "thanks for saving and sending it", "send_message"),
    ("en", "thanks for the reminder!", "reminder_add"),
    ("en", "THANKS FOR THE REMINDER!", "reminder_add"),
    ("en", "thank you so much for the reminder, it really helped", "reminder_add"),
    ("en", "thx for the note", "memory_save"),
    ("en", "cheers for the message", "send_message"),
    ("en", "perfect, thanks for sending that", "send_message"),
    ("en", "thanks a lot for remembering", "memory_save"),
    ("en", "lovely, thanks for the alarm", "reminder_add"),
    ("en", "thanks for the archive", "create_archive"),
    ("tr", "teşekkürler, hatırlatma için", "reminder_add"),
    ("tr", "TEŞEKKÜRLER, HATIRLATMA İÇİN", "reminder_add"),
    ("tr", "hatırlattığın için sağ ol", "reminder_add"),
    ("tr", "hatirlattigin icin sag ol", "reminder_add"),
    ("tr", "mesajın için teşekkürler", "send_message"),
    ("tr", "teşekkürler, randevu için", "calendar_add"),
    ("tr", "kaydettiğin için eyvallah", "memory_save"),
]


@pytest.mark.parametrize(("language", "message", "tool"), THANKED)
def test_what_a_thanks_is_for_shows_no_tool_that_changes_the_world(
    language: str, message: str, tool: str, known_texts: set[str]
) -> None:
    """"thanks for the reminder!" showed reminder_add (its name's cue), "mesajın için
    teşekkürler" send_message (mesaj*): the object of a thanks was read as a request."""
    assert normalize(message, language).text not in known_texts
    assert tool not in shown(message, language)


@pytest.mark.parametrize(("language", "message", "tool"), [
    ("en", "thanks for the reminder! remind me again at 6 tomorrow", "reminder_add"),
    ("en", "thanks for the note, now send it to Kaan", "send_message"),
    ("en", "thank you note to Ali for the flowers, send it by text", "send_message"),
    ("tr", "yarınki toplantı için hatırlatma kur, teşekkürler", "reminder_add"),
    ("tr", "annemin doğum günü için takvime ekle, sağ ol", "calendar_add"),
    ("tr", "mesaj için teşekkürler, Elif'e de mesaj at", "send_message"),
    ("en", "thx for the help can u text kaan the report", "send_message"),
    ("en", "thanks for the note please save it too", "memory_save"),
    ("en", "thanks for the summary now send it to kaan", "send_message"),
    ("en", "THANK YOU FOR THE LIST NOW DELETE OLD.TXT", "delete_file"),
    ("en", "thanks for the help and remind me tomorrow at 9 to call the bank", "reminder_add"),
    ("en", "THANKS FOR THE SUMMARY AND SEND IT TO KAAN", "send_message"),
    # Mersin (a city) is no "mersi"
    ("tr", "Mersin gezisini takvime ekle hafta sonu için", "calendar_add"),
    ("tr", "MERSİN OFİSİNE MESAJ AT YARINKİ TOPLANTI İÇİN", "send_message"),
    ("tr", "Mersin raporlarını zip yap müşteri için", "create_archive"),
])
def test_a_request_beside_a_thanks_keeps_its_tool(language: str, message: str, tool: str) -> None:
    assert tool in shown(message, language)


ACKNOWLEDGED = [  # what came or worked is acknowledged: (language, message, the tool it showed)
    ("en", "ok got your message", "send_message"),
    ("en", "OK GOT YOUR MESSAGE", "git_commit"),
    ("en", "received your message, thank you", "send_message"),
    ("en", "got the message, thanks", "git_commit"),
    ("en", "message received", "send_message"),
    ("en", "MESSAGE RECEIVED", "git_commit"),
    ("en", "got the text, thx", "send_message"),
    ("en", "the file got saved fine, cheers", "memory_save"),
    ("tr", "sağ olun, alarm çaldı", "reminder_add"),
    ("tr", "SAĞ OLUN, ALARM ÇALDI", "reminder_add"),
    ("tr", "mesajını aldım sağ ol", "send_message"),
    ("tr", "mesajini aldim sag ol", "send_message"),
    ("tr", "hatırlatma geldi, teşekkürler", "reminder_add"),
    ("tr", "tamam mesajı gördüm", "git_commit"),
    ("tr", "TAMAM MESAJI ALDIM", "send_message"),
    ("tr", "mesaj geldi tamam", "git_commit"),
    # The verb first, in a thanks: its object after it.
    ("tr", "aldım mesajını teşekkürler", "send_message"),
    ("tr", "ALDIM MESAJINI TEŞEKKÜRLER", "send_message"),
    ("tr", "gördüm mesajı tamam", "git_commit"),
    ("tr", "tamam gördüm mesajını", "send_message"),
    # "yes", "yep", "yeah", "yup", "evet" acknowledge like "ok"; "this" of "this morning"
    ("en", "yep, saw your text", "send_message"),
    ("en", "YEP, SAW YOUR TEXT", "send_message"),
    ("en", "yup, got your message", "send_message"),
    ("en", "yes, the reminder worked", "reminder_add"),
    ("en", "yeah the alarm went off, cheers", "reminder_add"),
    ("en", "got your reminder this morning, all good", "reminder_add"),
    ("en", "GOT YOUR REMINDER THIS MORNING, ALL GOOD", "reminder_add"),
    ("tr", "evet, mesajını gördüm", "send_message"),
]


@pytest.mark.parametrize(("language", "message", "tool"), ACKNOWLEDGED)
def test_an_acknowledgement_alone_shows_no_tool_that_changes_the_world(
    language: str, message: str, tool: str, known_texts: set[str]
) -> None:
    """"ok got your message" showed send_message (message*) and git_commit (a learned vote),
    "sağ olun, alarm çaldı" reminder_add: a message that only acknowledges asks for nothing."""
    assert normalize(message, language).text not in known_texts
    assert tool not in shown(message, language)


@pytest.mark.parametrize(("language", "message", "tool"), [
    ("en", "kaan messaged, reply to him", "send_message"),
    ("en", "got a text from selin, tell her I'm late", "send_message"),
    ("en", "got it, now text kaan that I'm on my way", "send_message"),
    ("en", "GOT YOUR MESSAGE, TEXT KAAN THE ADDRESS", "send_message"),
    ("en", "message received, forward it to selin", "send_message"),
    ("en", "the reminder worked, set another one for friday at 9", "reminder_add"),
    ("en", "the alarm went off, set another one for 7 tomorrow", "reminder_add"),
    ("en", "got a message from the bank, save the code 4471", "memory_save"),
    ("en", "got the invite, add it to my calendar friday 3pm", "calendar_add"),
    ("en", "got it, commit the changes", "git_commit"),
    ("en", "yep, text her that I'm on my way", "send_message"),
    ("en", "yes please send it to kaan", "send_message"),
    ("en", "got your reminder this morning, set another one for friday 9am", "reminder_add"),
    ("tr", "evet, anneme mesaj at", "send_message"),
    ("tr", "mesajını aldım, ona yarın ararım de", "send_message"),
    ("tr", "MESAJINI ALDIM, KAAN'A DA MESAJ AT", "send_message"),
    ("tr", "alarm çaldı, yarın 7'ye bir hatırlatma daha kur", "reminder_add"),
    ("tr", "mesaj geldi, ayşe'ye yaz geliyorum diye", "send_message"),
    ("tr", "randevu aldım, takvime ekle salı 14:00", "calendar_add"),
    ("tr", "tamam gördüm, şimdi dosyayı sil", "delete_file"),
    ("tr", "aldım mesajını, kaan'a da yaz", "send_message"),
    ("tr", "sağ ol, geldi paket, yarın için hatırlat", "reminder_add"),
])
def test_a_request_beside_an_acknowledgement_keeps_its_tool(
    language: str, message: str, tool: str
) -> None:
    assert tool in shown(message, language)


@pytest.mark.parametrize(("message", "tool"), [
    ("kira geldi kaydet", "memory_save"),
    ("paket geldi hatırlat", "reminder_add"),
    ("ona aldım yaz", "send_message"),
    ("mesaj geldi sil", "delete_file"),
    ("çalıştı commit", "git_commit"),
    ("KİRA GELDİ KAYDET", "memory_save"),
])
def test_a_turkish_request_after_an_acknowledging_verb_keeps_its_tool(
    message: str, tool: str
) -> None:
    """A Turkish verb ends its clause: the word after "geldi" is the next clause's verb, not
    what came ("kira geldi kaydet" ruled memory_save out)."""
    assert tool in shown(message, "tr")
