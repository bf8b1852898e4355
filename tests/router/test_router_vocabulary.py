"""What the trigger files know: requests worded without the tool's own word (a memory
question with no memory word, saving without "remember", git without "git", a how-to or
release question, news against sending word) fire their tool on sentences found in no case
file, and their false friends stay silent."""

from __future__ import annotations

import pytest

from pytest_tooleval.text.normalize import normalize
from tests.router.routing import CATALOGUE, TRIGGERS_ONLY, fired, plain_reasons, shown, signal


def scored(message: str, language: str) -> dict[str, float]:
    return TRIGGERS_ONLY.score(message, language, CATALOGUE)[0]


CLASSES = [
    # memory questions about our own facts, with no memory word
    (
        "Which bay do we park in at the office garage, is it ours or the neighbours'?",
        "en",
        "memory_search",
    ),
    ("How does Deniz take his tea?", "en", "memory_search"),
    ("What dose of the allergy tablets is my dad on?", "en", "memory_search"),
    ("What's the ssh login for the backup server?", "en", "memory_search"),
    ("Where do we keep the spare car key?", "en", "memory_search"),
    # saving without "remember"
    ("I'll forget it otherwise: the bike lock is 4471.", "en", "memory_save"),
    ("The alarm code was changed to 5120, update it.", "en", "memory_save"),
    ("pls rember that the boiler man is called Cem", "en", "memory_save"),
    # calendar questions phrased with am-I/weekend/meal words
    ("When am I seeing the dentist?", "en", "calendar_list"),
    ("Where am I having lunch on Thursday?", "en", "calendar_list"),
    ("Anything happening next weekend?", "en", "calendar_list"),
    # git questions without "git"
    ("Who last edited setup.cfg, and by whom was it reviewed?", "en", "git_log"),
    ("Which files changed since the v1.2 release tag?", "en", "git_diff"),
    ("I changed the parser but haven't committed yet; show me what I did.", "en", "git_diff"),
    ("Which test file uses the slow_network fixture?", "en", "grep_code"),
    # computation beyond arithmetic
    ("Give me the prime factors of 9991.", "en", "run_python"),
    ("Base64-encode the word kestrel.", "en", "run_python"),
    ("What is 48879 in hexadecimal?", "en", "run_python"),
    # documents: records of decisions, readings, spending
    ("What did the residents' committee decide about the lift?", "en", "search_documents"),
    ("What was the water meter reading on the handover form?", "en", "search_documents"),
    ("How much did we spend on the garden last spring?", "en", "search_documents"),
    # archives and writing
    ("What's the licence file inside the sources tarball?", "en", "extract_archive"),
    ("Put 'buy stamps' as a new line at the end of shopping.txt.", "en", "write_file"),
    # current information in English
    ("Do I need an umbrella in Izmir this afternoon?", "en", "web_search"),
    ("How humid is Antalya right now?", "en", "web_search"),
    ("Is there a train strike in France this week?", "en", "web_search"),
    ("How much is autogas in Konya today?", "en", "web_search"),
    ("Which bus goes to the stadium from the ferry terminal?", "en", "web_search"),
    # Turkish current information: reported past, transport, football, central bank, exams
    ("marmarayda arıza varmış, seferler duruyor mu", "tr", "web_search"),
    ("köprü trafiğe kapatılmış galiba, neden", "tr", "web_search"),
    ("beşiktaşın golünü kim attı dün", "tr", "web_search"),
    ("merkez bankası bugün faizi indirdi mi", "tr", "web_search"),
    ("YKS başvuruları ne zaman başlıyor", "tr", "web_search"),
    ("İzmir'de otogaz ne kadar bugün", "tr", "web_search"),
    ("ehliyet yenileme ücreti ne kadar", "tr", "web_search"),
    # Turkish files: rename and file types
    ("rapor.docx'in adını rapor_son.docx yap", "tr", "move_file"),
    ("tatil.jpg'nin ismini antalya.jpg olarak değiştir", "tr", "move_file"),
    ("hangi pdf belgelerim var, uzantısı pdf olanlar", "tr", "find_files"),
    # Turkish documents: decisions of a meeting
    ("site yönetim toplantısında bahçe için hangi firmaya karar verdik", "tr", "search_documents"),
    # Turkish arithmetic and dates
    ("elektrik 912 su 318, üç kişi eşit bölüşürsek kişi başı ne düşer", "tr", "calculator"),
    ("oğlum 3 Mart 2024 doğumlu, kaç günlük oldu", "tr", "date_diff"),
]


@pytest.mark.parametrize(("message", "language", "tool"), CLASSES)
def test_class_fires(message: str, language: str, tool: str) -> None:
    """The tool is chosen by a trigger or class, not by the look-up fallback."""
    assert tool in fired(message, language), fired(message, language)
    assert tool in shown(message, language)


@pytest.mark.parametrize(
    ("message", "language", "tool"),
    [
        ("havalimanına nasıl giderim", "tr", "web_search"),  # no -mış, no topic
        ("dosyayı Masaüstüne taşı", "tr", "web_search"),
        ("kaç gün kaldı doğum gününe", "tr", "web_search"),
        ("Thanks, that's all for now.", "en", "memory_save"),
        ("How much is 18% of 250?", "en", "web_search"),  # arithmetic, not the web
    ],
)
def test_false_friends_do_not_fire(message: str, language: str, tool: str) -> None:
    assert tool not in fired(message, language)


TURKISH_WITHOUT_THE_TOOL_WORD = [
    # git questions in Turkish with no "git": who/when with the reported past, what changed
    ("ayarlar.py'yi en son kim değiştirmiş", "tr", "git_log"),
    ("parser'da ne değişmiş, göster", "tr", "git_diff"),
    ("bu dosyada ne eklemiş, ondan önceki değişiklik neydi", "tr", "git_show"),
    ("parse_gpx nerelerde kullanılıyor", "tr", "grep_code"),
    # memory updates without "kaydet"
    ("wifi şifresini değiştirdim, yenisi kedi2024, güncelle", "tr", "memory_save"),
    # calendar: writing into the diary, moving an event
    ("perşembe 14:00'te diş randevusu var, ajandaya yaz", "tr", "calendar_add"),
    ("yoga dersini salıya ertele", "tr", "calendar_add"),
    # messages and contacts in short phone Turkish
    ("anneme yazıver, akşam geç geliyorum", "tr", "send_message"),
    ("kuaförün no lazım", "tr", "contacts_lookup"),
]


@pytest.mark.parametrize(("message", "language", "tool"), TURKISH_WITHOUT_THE_TOOL_WORD)
def test_turkish_requests_without_the_tool_word_fire(
    message: str, language: str, tool: str
) -> None:
    assert tool in fired(message, language), fired(message, language)


@pytest.mark.parametrize(
    ("message", "tool", "language"),
    [("what time does the aquarium open on sunday", "web_search", "en"),
     ("eczane kaça kadar açık", "web_search", "tr"),
     ("does my washing machine warranty still hold", "search_documents", "en"),
     ("kasko poliçemde cam hasarı var mı", "search_documents", "tr"),
     ("bana bunu bir kenara yazıver, kombi şifresi 4411", "memory_save", "tr"),
     ("commitlenmemiş bekleyen değişiklik var mı", "git_status", "tr")],
)
def test_vocabulary_classes(message: str, tool: str, language: str) -> None:
    assert tool in shown(message, language, k=5)


@pytest.mark.parametrize(
    ("message", "language"),
    [("when is my mortgage payment due per the bank letter", "en"),
     ("köpeğin aşı karnesinde kuduz aşısı ne zaman", "tr")],
)
def test_more_personal_records(message: str, language: str) -> None:
    assert "search_documents" in shown(message, language, k=5)


@pytest.mark.parametrize(
    ("message", "language", "tool"),
    [
        ("kredi kartı borcumun asgari ödemesi ne kadar", "tr", "search_documents"),
        ("hesap özetinde son ödeme günü ne yazıyor", "tr", "search_documents"),
        ("2 çeyrek bugün kaça patlar", "tr", "web_search"),
        ("müze pazar günü kaçta kapılarını açıyor", "tr", "web_search"),
        ("yaz saati uygulaması bu sene var mı", "tr", "web_search"),
        ("when do the clocks go forward this year", "en", "web_search"),
        ("tips for keeping basil alive indoors", "en", "web_search"),
        ("how do i descale a kettle", "en", "web_search"),
        ("does main.go have local edits", "en", "git_diff"),
        ("what's the ip of the nas in the hallway", "en", "memory_search"),
        ("when did the pottery class kick off", "en", "calendar_list"),
        ("kuzey kutup ayısının boyu ne kadar olur", "tr", "web_search"),
    ],
)
def test_the_classes_fire_on_new_sentences(message: str, language: str, tool: str) -> None:
    why = TRIGGERS_ONLY.score(message, language, CATALOGUE)
    assert scored(message, language).get(tool, 0.0) > 0, why


@pytest.mark.parametrize(
    "message",
    ["mercimek çorbası nasıl yapılır", "balkondaki kireç lekesi nasıl silinir",
     "çiğ köfte nasıl yoğrulur"],
)
def test_a_turkish_how_to_question_votes_for_web_search(message: str) -> None:
    assert scored(message, "tr").get("web_search", 0.0) >= 1.0


def test_a_passive_form_without_a_question_word_is_no_how_to() -> None:
    why = TRIGGERS_ONLY.score("toplantı yarın yapılır", "tr", CATALOGUE)[1]
    assert not any("how-to" in r for r in why.get("web_search", []))


def test_how_do_i_reach_someone_stays_a_contact_question() -> None:
    scores = scored("how do i reach Deniz", "en")
    assert scores["contacts_lookup"] > scores.get("web_search", 0.0)


def test_a_quarter_past_the_hour_is_no_gold_price() -> None:
    # "çeyrek" is a weak topic: without a time word or a second topic it is no question
    # about now, and the clock's "çeyrek geçe" stays with the time tools.
    scores = scored("toplantı üçü çeyrek geçe", "tr")
    assert scores.get("web_search", 0.0) <= 1.0


# "haber" is news unless it is sent.
@pytest.mark.parametrize(
    "message",
    ["annemlere bi haber salıver, geç kalıcam", "Zeynep'e haber ulaştır, toplantı iptal",
     "oğluma haber yolla akşama gelsin"],
)
def test_sending_word_is_a_message(message: str, known_texts: set[str]) -> None:
    assert normalize(message, "tr").text not in known_texts
    assert any(r.startswith("trigger 'haber") for r in signal(message, "tr", "send_message"))


# "email" before a pronoun is the verb: the message is sent, and the report it sends is
# still found; the noun (an address, a mail received) asks for no message.
@pytest.mark.parametrize(
    "message",
    ["can you email it to Kaan tonight", "EMAIL IT TO KAAN", "email them the minutes",
     "email me the list when you can"],
)
def test_email_before_its_object_sends_a_message(message: str, known_texts: set[str]) -> None:
    assert normalize(message, "en").text not in known_texts
    assert signal(message, "en", "send_message")


def test_the_report_to_email_is_still_found() -> None:
    tools = shown("find the Q3 report and email it to Kaan", "en")
    assert {"send_message", "search_documents", "read_document"} <= set(tools)
    # the Turkish repo* (a repository) is no English "report"
    assert not set(tools) & {"git_status", "git_log", "git_diff"}


@pytest.mark.parametrize(
    "message",
    ["I got a weird email from my bank, is it a scam", "what is Ebru's email",
     "I got a weird email the other day from my bank, is that normal?",
     "got an email this morning, nothing to do", "the email my landlord sent was rude",
     "can you find the email everyone got from HR?",
     "zip the slides so I can attach them to an email for the accountant"],
)
def test_an_email_named_asks_for_no_message(message: str) -> None:
    assert not signal(message, "en", "send_message")


def test_news_stays_news() -> None:
    reasons = signal("bugünkü ekonomi haberleri neler", "tr", "web_search")
    assert any(r.startswith("current information") for r in reasons)
    assert not signal("bugünkü ekonomi haberleri neler", "tr", "send_message")


def test_never_committed_is_uncommitted_work() -> None:
    message = "which edits in parser.py have i never committed"
    for tool in ("git_diff", "git_status"):
        assert any("never committed" in r for r in signal(message, "en", tool)), tool


# Hearsay, directions and plain facts: sentences in no case file.
@pytest.mark.parametrize(
    ("message", "language"),
    [("i heard something about a ferry strike in izmir, whats the story", "en"),
     ("is it true that the museum is free on sundays", "en"),
     ("fastest way from the airport to taksim", "en"),
     ("typical lifespan of a house sparrow", "en"),
     ("ehliyet harcı bu yıl ne kadar oldu", "tr")],
)
def test_hearsay_directions_and_facts_reach_the_web(
    message: str, language: str, known_texts: set[str]
) -> None:
    assert normalize(message, language).text not in known_texts
    assert signal(message, language, "web_search")


def test_the_fee_words_leave_spending_alone() -> None:
    # "harcama" (spending) is the user's records, not a state fee.
    reasons = signal("bu ay markete ne kadar harcama yaptık", "tr", "web_search")
    assert not any("harc" in r for r in reasons)


@pytest.mark.parametrize(
    ("message", "language"),
    [("has the new firefox come out yet", "en"),
     ("is 39 degrees normal for a toddler", "en"),
     ("yeni iphone çıktı mı", "tr")],
)
def test_release_and_is_it_normal_questions_are_looked_up(
    message: str, language: str, known_texts: set[str]
) -> None:
    assert normalize(message, language).text not in known_texts
    assert plain_reasons(message, language, "web_search")
