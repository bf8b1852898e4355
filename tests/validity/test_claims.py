"""An answer that contradicts the case or what happened fails its step (issue 30, items 3
and 4): the step's ``wrong`` items, a value about a state-checked write that the check did
not find, an action claimed when none ran. Each with the guards that keep it fair."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_tooleval.cases.errors import CaseFileError
from pytest_tooleval.cases.identity import content_hash
from pytest_tooleval.cases.load import load_case_file
from pytest_tooleval.cases.model import Case, CaseFile
from pytest_tooleval.check.oracle import ORACLE, run_oracle
from pytest_tooleval.engine.transcript import Attempt, StepTranscript
from pytest_tooleval.scoring.claims import contradictions
from pytest_tooleval.scoring.outcome import Outcome, score_case
from pytest_tooleval.tools.inline import InlineToolProvider
from tests.support.fake_openai import Rule, answer, call

USD = {"message": "Has the dollar gone up or down against the lira today, and by what "
                   "percentage?", "expect": "web_search", "evidence": [["0.21", "0,21"]],
       "wrong": ["dollar fell", "dollar dropped", "lira gained"]}
REMINDER = {"message": "remind me to take the bins out tonight at eight", "expect": "reminder_add",
            "after": {"reminder": {"text": "bins", "at": "2026-03-12T20:00"}}}
MESSAGE = {"message": "text Mira that the GeoJSON is ready", "expect": "send_message",
           "after": {"message": {"to": ["Mira", "+34 611 482 309"], "text": "GeoJSON"}}}


def tool_case(step: dict[str, Any], category: str = "tool") -> Case:
    return Case.model_validate({"name": "c", "category": category, "steps": [step]})


def ran(message: str, answer_text: str, *tools: str, result: str = "done",
        error: bool = False) -> StepTranscript:
    transcript = StepTranscript(message=message, answer=answer_text, answered=True)
    transcript.attempts = [Attempt(tool, {}, valid=True, result=result, result_is_error=error)
                           for tool in tools]
    return transcript


# -- the negative form ------------------------------------------------------------------
@pytest.mark.parametrize(("text", "outcome"), [
    ("The dollar rose 0.21% against the lira today.", Outcome.PASS),
    ("The lira lost 0,21 % against the dollar today.", Outcome.PASS),
    ("The dollar fell 0.21 % against the lira.", Outcome.PARTIAL),
    ("Down: the lira gained 0.21%.", Outcome.PARTIAL),
])
def test_a_wrong_item_in_the_answer_fails_the_step(text: str, outcome: Outcome) -> None:
    scored = score_case(tool_case(USD), [ran(USD["message"], text, "web_search")])
    assert scored.outcome is outcome
    if outcome is Outcome.PARTIAL:
        assert any("which is wrong here ('wrong')" in reason for reason in scored.reasons)
        assert scored.axes["answer"] == 0.0  # the right number does not redeem it


def test_a_wrong_item_reads_values_and_typographic_apostrophes() -> None:
    step = {"message": "how did the match end?", "expect": "web_search",
            "evidence": ["2-2"], "wrong": ["1-1", "I've booked"]}
    case = tool_case(step)
    assert score_case(case, [ran("x", "It ended 2-2.", "web_search")]).outcome is Outcome.PASS
    for text in ("2-2 at the end, 1 – 1 at half time", "2-2; I’ve booked a table"):
        assert score_case(case, [ran("x", text, "web_search")]).outcome is Outcome.PARTIAL


def test_the_negative_form_is_in_the_content_hash_only_when_given() -> None:
    file = CaseFile.model_validate({"name": "f", "cases": [
        {"name": "c", "category": "tool", "steps": [{"message": "m", "expect": "web_search"}]}]})
    plain = file.cases[0]
    assert "wrong" not in plain.model_dump(mode="json")["steps"][0]  # old hashes stand
    negative = Case.model_validate({**plain.model_dump(), "steps": [
        {"message": "m", "expect": "web_search", "wrong": "fell"}]})
    assert negative.steps[0].wrong == ["fell"]
    assert content_hash(file, negative) != content_hash(file, plain)


def test_an_inline_tools_read_only_is_offered_and_in_the_content_hash_only_when_given() -> None:
    tool = {"name": "order_status", "description": "Where an order is.", "result": "ships"}
    cases = [{"name": "c", "category": "irrelevance", "steps": [{"message": "thanks!"}]}]
    plain = CaseFile.model_validate({"name": "f", "tools": [tool], "cases": cases})
    assert "read_only" not in plain.tools[0].model_dump(mode="json")  # old hashes stand
    declared = CaseFile.model_validate({"name": "f", "tools": [{**tool, "read_only": True}],
                                        "cases": cases})
    assert [spec.read_only for spec in InlineToolProvider(list(declared.tools), "f").list_tools()
            ] == [True]
    assert content_hash(declared, declared.cases[0]) != content_hash(plain, plain.cases[0])


def _problems(tmp_path: Path, step: dict[str, Any]) -> str:
    path = tmp_path / "g.json"
    path.write_text(json.dumps({"name": "g", "requires": ["web_search"], "cases": [
        {"name": "c", "category": "tool", "steps": [step]}]}), encoding="utf-8")
    with pytest.raises(CaseFileError) as info:
        load_case_file(path)
    return str(info.value)


@pytest.mark.parametrize(("wrong", "message"), [
    (["2-2 draw"], "contained in the step's evidence"),
    (["up or down"], "in the step's own message"),
    (["x"], "empty or one character"),
    ([f"claim {i}" for i in range(9)], "at most 8 items, 200 characters in all"),
    (["a wrong claim " * 8, "another wrong claim " * 6], "at most 8 items, 200 characters"),
])
def test_the_guards_refuse_an_unfair_negative_list(tmp_path: Path, wrong: list[str],
                                                   message: str) -> None:
    text = _problems(tmp_path, {"message": "did the dollar go up or down?",
                                "expect": "web_search", "evidence": [["2-2 draw", "0.21"]],
                                "wrong": wrong})
    assert message in text and "case 'c', step 1" in text and "'wrong'" in text
    assert "fix:" in text


def test_the_oracle_refuses_a_wrong_item_the_gold_output_holds(tmp_path: Path,
                                                               world_base: Path) -> None:
    path = tmp_path / "o.json"
    gold = [{"tool": "web_search", "args": {"query": "US dollar Turkish lira daily change"}}]
    path.write_text(json.dumps({"name": "o", "requires": ["web_search"], "cases": [
        {"name": "ok", "category": "tool", "steps": [{**USD, "gold": gold}]},
        {"name": "unfair", "category": "tool", "steps": [
            {**USD, "wrong": ["-0.14"], "gold": gold}]}]}), encoding="utf-8")
    report = run_oracle([path], world_base=world_base)
    assert report.proven == 1, report.render()
    [first, *_] = [f for f in report.failures if f.case == "unfair"]
    assert (first.kind, first.step) == (ORACLE, 1)
    assert "wrong item '-0.14' is in the gold path's own tool output" in first.reason
    assert "fix:" in first.reason


# -- the answer against the state check ----------------------------------------------------
@pytest.mark.parametrize(("text", "outcome"), [
    ("Done: I'll remind you at 20:00 tonight (12 March).", Outcome.PASS),
    ("Reminder set for 8 pm.", Outcome.PASS),
    ("Done, I set the reminder.", Outcome.PASS),  # states nothing specific
    ("Reminder set for 08:00.", Outcome.PARTIAL),
    ("Reminder set for 20:00 on 13 March.", Outcome.PARTIAL),
])
def test_a_time_or_date_the_state_check_did_not_find_fails(text: str, outcome: Outcome) -> None:
    scored = score_case(tool_case(REMINDER), [
        ran(REMINDER["message"], text, "reminder_add", result="reminder r-1 saved")])
    assert scored.outcome is outcome, scored.reasons
    if outcome is Outcome.PARTIAL:
        assert any("but the state check found" in reason for reason in scored.reasons)


@pytest.mark.parametrize(("text", "outcome"), [
    ("Sent to Mira (+34611482309).", Outcome.PASS),
    ("Sent to Mira at 611 482 309.", Outcome.PASS),
    ("Sent to +34 611 482 390.", Outcome.PARTIAL),
])
def test_a_recipient_number_is_read_by_its_digits(text: str, outcome: Outcome) -> None:
    scored = score_case(tool_case(MESSAGE), [
        ran(MESSAGE["message"], text, "send_message", result="message m-7 sent")])
    assert scored.outcome is outcome, scored.reasons


def test_a_value_the_conversation_showed_may_be_mentioned() -> None:
    # The 14:00 meeting came from a tool; the answer cites it beside the reminder's time.
    answer_text = "Your meeting is at 14:00, so I set the reminder for 20:00."
    scored = score_case(tool_case(REMINDER), [ran(
        REMINDER["message"], answer_text, "calendar_list", "reminder_add",
        result="14:00 meeting with Deniz")])
    assert scored.outcome is Outcome.PASS, scored.reasons


def test_a_file_path_the_write_did_not_leave_fails() -> None:
    step = {"message": "save my packing list", "expect": "write_file",
            "after": {"file": "Documents/packing.txt"}}
    assert score_case(tool_case(step), [ran("x", "Saved to ~/Documents/packing.txt.",
                                           "write_file")]).outcome is Outcome.PASS
    scored = score_case(tool_case(step), [ran("x", "Saved to Documents/packing.md.",
                                              "write_file")])
    assert scored.outcome is Outcome.PARTIAL
    assert "the path 'Documents/packing.md'" in " ".join(scored.reasons)


# -- the recipient by name: the world's known people ---------------------------------------
@pytest.mark.parametrize(("text", "outcome"), [
    ("Sent to Selin: the GeoJSON is ready.", Outcome.PARTIAL),
    ("Done, I messaged Selin Öztürk that the GeoJSON is ready.", Outcome.PARTIAL),
    ("Sent to Mira: the GeoJSON is ready.", Outcome.PASS),
    ("I've let Ms Castellanos know the GeoJSON is ready.", Outcome.PASS),
    ("Message sent to Mira Castellanos (+34 611 482 309).", Outcome.PASS),
    ("Sent to Mira, not to Selin, as you asked.", Outcome.PASS),  # the right one is named
    ("Done, the message is on its way.", Outcome.PASS),  # names nobody
])
def test_a_recipient_named_wrong_fails(text: str, outcome: Outcome) -> None:
    scored = score_case(tool_case(MESSAGE), [
        ran(MESSAGE["message"], text, "send_message", result="message m-7 sent")])
    assert scored.outcome is outcome, scored.reasons
    if outcome is Outcome.PARTIAL:
        assert "the answer states the recipient Selin Öztürk, but the state check found " \
            "Mira Castellanos" in scored.reasons


MESAJ = {"message": "Selin'e yayın notlarının hazır olduğunu yaz", "expect": "send_message",
         "after": {"message": {"to": ["Selin", "533 219 84 70"], "text": "yayın notları"}}}


@pytest.mark.parametrize(("text", "outcome"), [
    ("Mira'ya gönderdim: yayın notları hazır.", Outcome.PARTIAL),
    ("Mesajı Castellanos'a ilettim.", Outcome.PARTIAL),
    ("Tamam, Oliver Brandt'a yazdım.", Outcome.PARTIAL),
    ("Selin'e gönderdim: yayın notları hazır.", Outcome.PASS),
    ("Mesajı Öztürk'e ilettim.", Outcome.PASS),
    ("Selin Hanım'a yazdım, notlar hazır.", Outcome.PASS),
    ("Mesaj gönderildi.", Outcome.PASS),
])
def test_a_recipient_named_wrong_fails_in_turkish(text: str, outcome: Outcome) -> None:
    scored = score_case(tool_case(MESAJ), [ran(MESAJ["message"], text, "send_message")], "tr")
    assert scored.outcome is outcome, scored.reasons
    assert all("but the state check found Selin Öztürk" in reason
               for reason in scored.reasons)


def test_a_person_the_conversation_showed_may_be_named() -> None:
    step = {**MESSAGE, "message": "Selin checked the GeoJSON; text Mira that it is ready"}
    text = "Done: I passed on that Selin checked it and it is ready."
    assert score_case(tool_case(step), [ran(step["message"], text, "send_message")]) \
        .outcome is Outcome.PASS
    # A tool result shows a person too (a contact looked up before the message was sent).
    looked_up = ran(MESSAGE["message"], "Sent to Selin.", "contacts_search", "send_message",
                    result="Selin Öztürk, +90 533 219 84 70")
    assert score_case(tool_case(MESSAGE), [looked_up]).outcome is Outcome.PASS
    # Not seen anywhere: the same answer fails.
    assert score_case(tool_case(MESSAGE), [ran(MESSAGE["message"], "Sent to Selin.",
                                                "send_message")]).outcome is Outcome.PARTIAL


def test_a_recipient_given_only_by_number_is_the_contact_with_that_number() -> None:
    step = {**MESSAGE, "after": {"message": {"to": "+34 611 482 309", "text": "GeoJSON"}}}
    for text, outcome in (("Sent to Mira.", Outcome.PASS), ("Sent to Selin.", Outcome.PARTIAL)):
        scored = score_case(tool_case(step), [ran("x", text, "send_message")])
        assert scored.outcome is outcome, (text, scored.reasons)


# -- an action claimed when none ran ---------------------------------------------------------
def test_a_thanks_answer_may_not_claim_an_action_that_did_not_run() -> None:
    thanks = tool_case({"message": "thanks, that's all"}, "irrelevance")
    assert score_case(thanks, [ran("thanks", "You're welcome!")]).outcome is Outcome.PASS
    for text in ("You're welcome, I’ve booked it for you.", "Rica ederim, mesajı gönderdim."):
        scored = score_case(thanks, [ran("thanks", text)])
        assert scored.outcome is Outcome.PARTIAL
        assert "claims an action" in scored.reasons[0]


def test_an_action_claim_stands_when_the_action_ran() -> None:
    chain = Case.model_validate({"name": "c", "category": "chain", "steps": [
        {"message": "book it", "expect": "book_table"}, {"message": "thanks!"}]})
    booked = [ran("book it", "Booked.", "book_table"), ran("thanks!", "I've booked it, enjoy!")]
    assert score_case(chain, booked).outcome is Outcome.PASS
    failed = [ran("book it", "It failed.", "book_table", error=True),
              ran("thanks!", "I've booked it, enjoy!")]
    assert score_case(chain, failed).outcome is Outcome.PARTIAL


@pytest.mark.parametrize("text", ["You're welcome! I've sent you a confirmation e-mail as well.",
                                  "Rica ederim, sizin için yeni bir sipariş oluşturdum."])
def test_a_call_recorded_read_only_backs_no_claimed_action(text: str) -> None:
    """A user's read-only order_status ran, and "I've sent you a confirmation e-mail"
    passed. Recorded read-only it backs no claim; unknown (an undeclared tool, a report of an
    earlier version) or False, it may have acted."""
    chain = Case.model_validate({"name": "c", "category": "chain", "steps": [
        {"message": "where is order 51?", "expect": "order_status"}, {"message": "thanks!"}]})
    for read_only, outcome in ((True, Outcome.PARTIAL), (None, Outcome.PASS),
                               (False, Outcome.PASS)):
        looked = ran("where is order 51?", "It ships tomorrow.", "order_status")
        looked.attempts[0].read_only = read_only
        scored = score_case(chain, [looked, ran("thanks!", text)])
        assert scored.outcome is outcome, (read_only, scored.reasons)
        assert ("claims an action" in " ".join(scored.reasons)) is (outcome is Outcome.PARTIAL)


def test_a_tool_recorded_as_acting_under_a_read_only_builtins_name_may_have_acted() -> None:
    """An MCP server's own read_file (shadow_builtins) that says readOnlyHint: false: the
    built-in's name said it only read, whatever its record. The record decides; the name
    only where there is none (a report of an earlier version)."""
    chain = Case.model_validate({"name": "c", "category": "chain", "steps": [
        {"message": "read notes.txt", "expect": "read_file"}, {"message": "thanks!"}]})
    for read_only, outcome in ((False, Outcome.PASS), (None, Outcome.PARTIAL),
                               (True, Outcome.PARTIAL)):
        looked = ran("read notes.txt", "It says hi.", "read_file")
        looked.attempts[0].read_only = read_only
        scored = score_case(chain, [looked, ran("thanks!", "Done, I've sent it to Kaan.")])
        assert scored.outcome is outcome, (read_only, scored.reasons)


@pytest.mark.parametrize("value", ["yes", 1, 0, "false"])
def test_a_read_only_that_is_no_bool_is_refused(value: Any) -> None:
    """@tool(read_only="yes") scored as 'may have acted' live and as read-only once the
    report was read back (pydantic reads "yes" and 1 as true): two scores of one run."""
    from pytest_tooleval.tools.base import ToolSpec

    with pytest.raises(TypeError, match=r"tool 'order_status': read_only must be True, "
                                        r"False or None"):
        ToolSpec("order_status", "Order status.", {"type": "object"}, "python:x", value)


# -- end to end, through the plugin ----------------------------------------------------------
def test_wrong_and_contradicting_answers_fail_end_to_end(project: Any, fake_model: Any) -> None:
    from tests.conftest import WEATHER_TOOL, scenario

    cases = [
        {"name": "rain", "category": "tool", "steps": [
            {"message": "is it dry in Izmir?", "expect": "get_weather", "evidence": ["17.4"],
             "wrong": ["it is dry", "no rain"]}]},
        {"name": "thanks", "category": "irrelevance", "steps": [{"message": "thanks a lot"}]},
    ]
    server = fake_model([
        Rule("dry in Izmir", [call("get_weather", {"city": "Izmir"}),
                              answer("Yes, it is dry: 17.4 C.")]),
        Rule("thanks a lot", [answer("You're welcome, I've saved that for you.")]),
    ])
    project.profile(server)
    project.write("scenarios/demo.yaml", scenario(cases, tools=[WEATHER_TOOL]))
    project.run("--tooleval-min-cases", "0", "--tooleval-min-score", "0")
    results = project.cases()
    assert results["rain"].outcome == "PARTIAL"
    assert "the answer states 'it is dry', which is wrong here" in results["rain"].reasons[0]
    assert results["thanks"].outcome == "PARTIAL"
    assert "claims an action (\"I've saved\")" in results["thanks"].reasons[0]


def test_a_local_number_matches_the_same_number_with_its_area_code() -> None:
    step = {"message": "text the dentist", "expect": "send_message",
            "after": {"message": {"to": ["418 33 27"], "text": "late"}}}
    scored = score_case(tool_case(step), [ran("x", "Sent to +90 216 418 33 27.", "send_message")])
    assert scored.outcome is Outcome.PASS, scored.reasons


# -- the cases issue 30 names: the wrong answer fails, the right one stands -----------------
ROOT = Path(__file__).resolve().parents[2]
NAMED = [
    ("benchmarks/en/web.json", "usd-daily-change", 1,
     "The dollar fell 0.21 % against the lira today.",
     "The dollar rose 0.21% against the lira today."),
    ("benchmarks/tr/web.json", "galatasaray-samsunspor-sonuc", 1,
     "Maç 1-1 berabere bitti.", "Maç 2-2 berabere bitti."),
    ("scenarios/restaurants.yaml", "TC-11", 1,
     "Done! I’ve booked Osteria Lupo for 4 on Friday at 20:00.",
     "Sorry, Osteria Lupo is fully booked at 20:00; free slots: 18:30 and 21:45."),
    ("benchmarks/tr/code-git.json", "gps-drift-dokunulan-dosyalar", 1,
     "README.md, kestrel/cli.py, kestrel/export.py, kestrel/geo.py, tests/test_drift.py, "
     "tests/test_export.py", "kestrel/cli.py, kestrel/geo.py ve tests/test_drift.py"),
    ("benchmarks/en/chains.json", "chain-show-helptr-then-grep", 2,
     "Yes, HELP_TR is used in cli.py.",
     "No: HELP_TR is only defined in kestrel/cli.py (line 40); nothing else uses it."),
    ("scenarios/flights.yaml", "TC-9", 1, "The earliest is TP 671, landing 08:35.",
     "KL 1691 lands at 09:25: the earliest non-stop with business class."),
    ("benchmarks/tr/register.json", "cop-hatirlatma-caps", 1,
     "Tamam, saat 08:00 için hatırlatıcı kurdum.", "Tamam, bu akşam 20:00'de hatırlatırım."),
    ("benchmarks/en/chains.json", "chain-export-author-phone-message", 3,
     "Sent to Mira at +34 611 482 390.", "Sent to Mira (+34611482309)."),
    ("benchmarks/en/chains.json", "chain-door-code-send-oliver", 2,
     "Sent the code to Elif.", "Sent the code 2386* to Oliver Brandt."),
    # Numbers said in words are read in the case's language, as the evidence matcher reads
    # them: the wrong half of the day is caught, the right one stands.
    ("benchmarks/en/memory-calendar.json", "rem-water-bill", 1,
     "Done: I'll remind you tomorrow at nine pm to pay the water bill.",
     "Done: I'll remind you tomorrow at nine am to pay the water bill."),
    ("benchmarks/tr/register.json", "cop-hatirlatma-caps", 1,
     "Tamam, sabah sekizde hatırlatacağım.", "Tamam, akşam sekizde hatırlatırım."),
]


@pytest.mark.parametrize(("path", "name", "number", "wrong", "right"), NAMED,
                         ids=[f"{n}-{s}" for _, n, s, _, _ in NAMED])
def test_the_named_wrong_answers_fail_and_the_right_ones_stand(
        path: str, name: str, number: int, wrong: str, right: str) -> None:
    case_file = load_case_file(ROOT / path)
    case = next(c for c in case_file.cases if c.name == name)

    def found(text: str) -> list[str]:
        transcripts = [ran(step.message, text if i == number else "", *step.expected_tools)
                       for i, step in enumerate(case.steps, 1)]
        return contradictions(case, transcripts, case_file.language)[number - 1]

    assert found(wrong), wrong
    assert not found(right), found(right)


def test_abbreviations_are_no_paths() -> None:
    step = {"message": "save my packing list", "expect": "write_file",
            "after": {"file": "Documents/packing.txt"}}
    text = "Saved it, i.e. your list, e.g. socks."
    assert score_case(tool_case(step), [ran("x", text, "write_file")]).outcome is Outcome.PASS


def test_a_reply_cut_off_at_thanks_is_named_for_what_it_was() -> None:
    """A cut-off reply is a malformed attempt, not an abstention (issue 30), but the reason
    said "a tool call was attempted … ((unparseable))" as if a call had been written."""
    from pytest_tooleval.models.base import TRUNCATED

    transcript = StepTranscript(message="thanks!")
    transcript.attempts = [Attempt(None, None, valid=False, malformed="unparseable",
                                   reason=TRUNCATED)]
    scored = score_case(tool_case({"message": "thanks!"}, category="irrelevance"), [transcript])
    assert scored.outcome is Outcome.FAIL
    assert scored.reasons[0] == ("a tool call was attempted where none was wanted (a reply "
                                 "cut off at max_tokens)")
