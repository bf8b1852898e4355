"""Each guard refuses what it must and accepts a valid file (docs/format.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_tooleval.cases.errors import CaseFileError, Problem
from pytest_tooleval.cases.load import load_case_file


def write(tmp_path: Path, data: dict, suffix: str = ".json") -> Path:
    path = tmp_path / f"f{suffix}"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def tool_case(**step: object) -> dict:
    return {"name": "c", "category": "tool",
            "steps": [{"message": "how much is the water bill?", "expect": "search_documents",
                       **step}]}


VALID = {"name": "v", "requires": ["search_documents"], "cases": [
    tool_case(evidence=[["412,80", "412.80"]], forbidden=["web_search"]),
    {"name": "thanks", "category": "irrelevance", "steps": [{"message": "thanks!"}]}]}


def problems(tmp_path: Path, data: dict) -> str:
    with pytest.raises(CaseFileError) as info:
        load_case_file(write(tmp_path, data))
    return str(info.value)


def test_a_valid_file_loads(tmp_path: Path) -> None:
    assert len(load_case_file(write(tmp_path, VALID)).cases) == 2


@pytest.mark.parametrize(("step", "message"), [
    ({"evidence": ["7"]}, "single digit"),
    ({"evidence": ["x"]}, "single character"),
    ({"evidence": [" "]}, "empty evidence value"),
    ({"evidence": ["water bill"]}, "appears in the step's own message"),
    ({"expect": "nosuch_tool"}, "unknown tool 'nosuch_tool'"),
    ({"forbidden": ["nosuch"]}, "unknown tool 'nosuch'"),
    # A typo got "check the spelling" and no word of the name it missed.
    ({"expect": "web_serch"}, "check the spelling (did you mean 'web_search'?)"),
    ({"expect": "read_document"}, "not in the file's 'requires'"),
    ({"forbidden": ["search_documents"]}, "both expected and forbidden"),
    ({"evidence": [[]]}, "empty list of alternatives"),
    # An empty 'args' accepts any call, yet it met the measuring guard of a write step.
    ({"args": {}}, "'args' is empty"),
    # A value of the wrong type named the field, but said nothing of how to fix it.
    ({"forbidden": {"web_search": True}}, "Input should be a valid list"),
    ({"recall": "sometimes"}, "valid boolean"),
])
def test_each_guard_refuses(tmp_path: Path, step: dict, message: str) -> None:
    data = {"name": "g", "requires": ["search_documents"], "cases": [tool_case(**step)]}
    text = problems(tmp_path, data)
    assert message in text and "case 'c', step 1" in text and "fix:" in text


def test_number_from_the_question_is_refused(tmp_path: Path) -> None:
    data = {"name": "g", "requires": ["calculator"], "cases": [{
        "name": "c", "category": "tool", "steps": [{
            "message": "what is 18 * 1000?", "expect": "calculator", "evidence": ["1000"]}]}]}
    # An echo of the question holds "1000" on its boundaries: it could not fail.
    assert "appears in the step's own message" in problems(tmp_path, data)


def test_digits_that_merely_occur_in_the_question_are_accepted(tmp_path: Path) -> None:
    # "25" is not in "2,5" on boundaries: an echo of the question never matches it.
    data = {"name": "g", "requires": ["calculator"], "cases": [{
        "name": "c", "category": "tool", "steps": [{
            "message": "what is 2,5 times 40?", "expect": "calculator", "evidence": ["25"]}]}]}
    assert load_case_file(write(tmp_path, data)).cases[0].steps[0].evidence == ["25"]


def test_file_level_guards(tmp_path: Path) -> None:
    dup = {"name": "d", "cases": [VALID["cases"][1], VALID["cases"][1]]}
    assert "2 cases are named 'thanks'" in problems(tmp_path, dup)
    irr = {"name": "i", "requires": ["web_search"], "cases": [
        {"name": "x", "category": "irrelevance",
         "steps": [{"message": "hello", "expect": "web_search"}]}]}
    assert "an irrelevance case may not expect a tool" in problems(tmp_path, irr)
    two = {"name": "t", "cases": [{"name": "x", "category": "tool",
                                   "steps": [{"message": "a"}, {"message": "b"}]}]}
    assert "use category 'chain'" in problems(tmp_path, two)
    # A tool case expecting no tool counted on two axes at once: tool and irrelevance.
    bare = {"name": "b", "cases": [{"name": "x", "category": "tool",
                                    "steps": [{"message": "thanks, that's all"}]}]}
    assert "a tool case must expect a tool" in problems(tmp_path, bare)


def test_a_misspelt_requires_entry_is_named_once(tmp_path: Path) -> None:
    """The run called the correctly spelt 'stock_level' an unknown tool, once per step and
    field, check said it was not in 'requires'; neither named the misspelt entry."""
    step = {"message": "how many blue mugs are left?", "expect": "stock_level",
            "gold": [{"tool": "stock_level", "args": {"item": "blue mug"}}]}
    data = {"name": "r", "requires": ["stock_levl"], "cases": [
        {"name": "a", "category": "tool", "steps": [step]},
        {"name": "b", "category": "chain", "steps": [step, step]}]}
    with pytest.raises(CaseFileError) as info:
        load_case_file(write(tmp_path, data))
    assert info.value.problems == [Problem(
        "'requires' lists 'stock_levl', but the steps name 'stock_level'",
        "spell the tool's name the same in 'requires' and in the steps, or add "
        "'stock_level' to 'requires'", field="requires", value="stock_levl")]


def test_inline_tool_schema_and_name_are_checked(tmp_path: Path) -> None:
    bad = {"name": "s", "tools": [{"name": "get_x", "description": "x",
                                   "parameters": {"type": "frobnicate"}}],
           "cases": [{"name": "a", "category": "irrelevance", "steps": [{"message": "hi"}]}]}
    assert "not a valid JSON Schema" in problems(tmp_path, bad)
    clash = {"name": "s", "tools": [{"name": "calculator", "description": "x"}],
             "cases": [{"name": "a", "category": "irrelevance", "steps": [{"message": "hi"}]}]}
    assert "has the name of a built-in tool" in problems(tmp_path, clash)


def test_a_name_ending_in_a_newline_is_refused(tmp_path: Path) -> None:
    """'$' matches before a final newline: "x\\n" passed as a case name (two items both
    shown as f.json::x), "en\\n" as a language (none of English's rules then apply) and
    "get_x\\n" as a tool name."""
    irrelevance = {"category": "irrelevance", "steps": [{"message": "hi"}]}
    case = {"name": "c\n", **irrelevance}
    assert "a case name may hold" in problems(tmp_path, {"name": "n", "cases": [case]})
    case = {"name": "c", "job": "j\n", **irrelevance}
    assert "a job id may hold" in problems(tmp_path, {"name": "n", "cases": [case]})
    data = {"name": "n", "language": "en\n", "cases": [{"name": "c", **irrelevance}]}
    assert "language is a BCP-47 primary tag" in problems(tmp_path, data)
    data = {"name": "n", "tools": [{"name": "get_x\n", "description": "x"}],
            "cases": [{"name": "c", **irrelevance}]}
    assert "a tool name starts with" in problems(tmp_path, data)
    data["tools"][0]["name"] = "ns.get_x"  # offered, OpenAI's chat API answers 400
    assert "'_' or '-' (at most 64 characters: OpenAI" in problems(tmp_path, data)


def test_a_tab_indent_in_yaml_is_named_as_the_fix(tmp_path: Path) -> None:
    """It once got "found character that cannot start any token; fix: fix the YAML syntax
    there", which does not say the character is the tab an editor put in."""
    path = tmp_path / "s.yaml"
    path.write_text("name: x\ncases:\n\t- name: t\n", encoding="utf-8")
    with pytest.raises(CaseFileError, match=r"(?s)not valid YAML at line 3, column 1: .*"
                       r"fix: indent with spaces: YAML refuses a tab there"):
        load_case_file(path)
    path.write_text("name: x\ncases:\n  - name: [unclosed\n", encoding="utf-8")
    with pytest.raises(CaseFileError, match=r"fix: look for an unclosed quote or bracket"):
        load_case_file(path)


def test_a_tool_required_twice_is_named(tmp_path: Path) -> None:
    """It was accepted, then a missing server's message listed the tool twice."""
    data = {"name": "r", "requires": ["inv_stock", "inv_restock", "inv_stock"],
            "cases": [{"name": "a", "category": "tool",
                       "steps": [{"message": "stock?", "expect": "inv_stock"}]}]}
    with pytest.raises(CaseFileError) as info:
        load_case_file(write(tmp_path, data))
    assert info.value.problems == [Problem("'requires' lists 'inv_stock' 2 times",
                                           "list each tool once", field="requires",
                                           value="inv_stock")]


def test_an_unclosed_quote_is_named_where_it_opens(tmp_path: Path) -> None:
    """It was reported at the end of the file ("found unexpected end of stream; fix: fix the
    YAML syntax there"), lines below the quote that caused it."""
    path = tmp_path / "s.yaml"
    path.write_text('name: x\ncases:\n  - name: t\n    steps:\n      - message: "hi\n'
                    "        expect: get_weather\n\n\n", encoding="utf-8")
    with pytest.raises(CaseFileError, match=r"(?s)while scanning a quoted scalar at line 5, "
                       r"column 18\).*fix: close the quote opened at line 5"):
        load_case_file(path)


def test_a_file_that_cannot_be_read_is_not_told_to_be_saved_as_utf8(tmp_path: Path) -> None:
    """`tooleval call --file` with a misspelt path said "cannot read the file: [Errno 2] No
    such file or directory: '...'; fix: save it as UTF-8 text"."""
    with pytest.raises(CaseFileError) as info:
        load_case_file(tmp_path / "nope.json")
    assert "cannot read the file: No such file or directory" in str(info.value)
    assert "fix: give the path of a case file you can read" in str(info.value)
    (tmp_path / "latin1.json").write_bytes(b'{"name": "caf\xe9"}')
    with pytest.raises(CaseFileError, match="fix: save it as UTF-8 text"):
        load_case_file(tmp_path / "latin1.json")


def test_yaml_syntax_error_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("name: x\ncases:\n  - name: [unclosed\n", encoding="utf-8")
    with pytest.raises(CaseFileError, match=r"not valid YAML at line \d+"):
        load_case_file(path)


@pytest.mark.parametrize(("field", "value"), [
    ("evidence", [412.80]),                     # a number where a text goes
    ("evidence", [[["412,80"]]]),               # one list too many
    ("after", {"file": "Documents/x.txt", "contains": 5}),
])
def test_a_value_no_union_member_fits_is_one_problem(tmp_path: Path, field: str,
                                                     value: object) -> None:
    # pydantic reports `str | list[str]` once per member ('evidence.0.str',
    # 'evidence.0.list[str]'): two messages in its own words for one mistake.
    with pytest.raises(CaseFileError) as info:
        load_case_file(write(tmp_path, {"name": "g", "requires": ["search_documents"],
                                        "cases": [tool_case(**{field: value})]}))
    (problem,) = info.value.problems
    assert problem.field in ("evidence.0", "after.0.contains")
    assert "a text, or a list of texts" in problem.message


def test_a_yaml_boolean_where_text_goes_says_to_quote_it(tmp_path: Path) -> None:
    # `language: no` (Norwegian) is the YAML boolean false: the fix said "write the value
    # as docs/format.md shows it (a text, a list, an object, true)".
    path = tmp_path / "f.yaml"
    path.write_text("name: g\nlanguage: no\ncases:\n  - name: c\n    category: irrelevance\n"
                    "    steps: [{message: thanks}]\n", encoding="utf-8")
    with pytest.raises(CaseFileError) as info:
        load_case_file(path)
    (problem,) = info.value.problems
    assert problem.field == "language" and "YAML reads no" in problem.fix


@pytest.mark.parametrize("check", [
    {"file": "../../etc/passwd"},   # crashed check --oracle with a traceback; ERROR in a run
    {"absent": ""},                 # the home folder itself: could never pass
    {"absent": "/etc/passwd"},      # read under home: held whatever the model did
    {"file": "~/Documents/a.txt"},  # a folder named "~": could never pass
])
def test_a_state_check_path_outside_home_is_refused(tmp_path: Path, check: dict) -> None:
    text = problems(tmp_path, {"name": "g", "requires": ["search_documents"],
                               "cases": [tool_case(after=[check])]})
    assert "field 'after.0'" in text and "is not a path under the home folder" in text


@pytest.mark.parametrize("check", [
    {"event": {"title": "Dentist", "start": "2026-02-30T15:00"}},  # no 30 February
    {"reminder": {"text": "bins", "at": "2026-13-01"}},
    {"event": {"title": "Dentist", "end": ["2026-03-14T16:00", "next tuesday"]}},
])
def test_a_state_check_time_that_is_no_moment_is_refused(tmp_path: Path, check: dict) -> None:
    # It loaded, and the check failed whatever the model did: the model was scored for it.
    text = problems(tmp_path, {"name": "g", "requires": ["search_documents"],
                               "cases": [tool_case(after=[check])]})
    assert "field 'after.0'" in text and "is not an ISO date or date-time" in text


def test_two_inline_tools_of_one_name_are_refused(tmp_path: Path) -> None:
    # Both loaded; the model and the oracle each saw one of them, silently.
    tool = {"name": "get_x", "description": "x", "result": "17.4"}
    data = {"name": "s", "tools": [{"name": "get_x", "description": "draft"}, tool],
            "cases": [{"name": "a", "category": "irrelevance", "steps": [{"message": "hi"}]}]}
    assert "2 inline tools are named 'get_x'" in problems(tmp_path, data)


def test_a_turkish_letter_in_a_case_name_is_named_as_the_reason(tmp_path: Path) -> None:
    # "sipariş" was refused with "may hold letters, digits, ...": ş is a letter.
    case = {"name": "sipariş", "category": "irrelevance", "steps": [{"message": "hi"}]}
    assert "ASCII letters (no ş" in problems(tmp_path, {"name": "n", "cases": [case]})


def test_an_empty_benchmark_name_is_refused_with_a_fix(tmp_path: Path) -> None:
    # "name": "" loaded: report rows with an empty file_name, items shown as "::case".
    case = {"name": "c", "category": "irrelevance", "steps": [{"message": "hi"}]}
    with pytest.raises(CaseFileError) as info:
        load_case_file(write(tmp_path, {"name": "", "cases": [case]}))
    (problem,) = info.value.problems
    assert problem.field == "name" and problem.fix


def test_a_message_of_only_spaces_is_refused(tmp_path: Path) -> None:
    # "   " loaded and ran: the model was asked nothing, and scored on it.
    case = {"name": "c", "category": "irrelevance", "steps": [{"message": "  \n "}]}
    with pytest.raises(CaseFileError) as info:
        load_case_file(write(tmp_path, {"name": "g", "cases": [case]}))
    (problem,) = info.value.problems
    assert (problem.case, problem.step, problem.field) == ("c", 1, "message")
    assert problem.message == "a message of only spaces: write what the user says"


def test_a_misspelt_field_is_one_problem_that_names_the_field(tmp_path: Path) -> None:
    # "stpes" gave two problems ('steps': Field required; 'stpes': unknown field), and
    # "expcet" no hint, where the configuration's own keys say "did you mean".
    case = {"name": "c", "category": "tool", "stpes": [{"message": "hi"}]}
    with pytest.raises(CaseFileError) as info:
        load_case_file(write(tmp_path, {"name": "g", "cases": [case]}))
    (problem,) = info.value.problems
    assert (problem.field, problem.message) == ("stpes", "unknown field (did you mean 'steps'?)")
    text = problems(tmp_path, {"name": "g", "requires": ["search_documents"],
                               "cases": [tool_case(expcet="web_search")]})
    assert "field 'expcet': unknown field (did you mean 'expect'?)" in text


@pytest.mark.parametrize(("world", "date"), [({}, "12 March"),
                                             ({"clock": "2026-05-01T09:00:00+03:00"}, "1 May")])
def test_a_date_that_the_messages_day_word_names_is_refused(tmp_path: Path, world: dict,
                                                            date: str) -> None:
    """The scorer reads an answer's "today" as the case's day, so "what's the date today?"
    echoed met evidence of that date: the guard reads the message on the same clock."""
    step = {"message": "what's the date today?", "expect": "current_datetime",
            "evidence": [[date, "2026"]]}
    data = {"name": "g", "requires": ["current_datetime"], "world": world,
            "cases": [{"name": "c", "category": "tool", "steps": [step]}]}
    text = problems(tmp_path, data)
    assert f"'{date}'" in text and "day word" in text and "'2026'" not in text
    step["message"] = "what's the date?"
    assert load_case_file(write(tmp_path, data)).cases[0].steps[0].message == step["message"]
