"""Guards: rules that refuse a case which could not fail, or could not be scored.

A plain substring check made "18" pass on an answer of 18000: green forever, whatever the
model said. These rules run at load time and in ``tooleval check``.
"""

from __future__ import annotations

import difflib
from collections import Counter
from datetime import date

from pytest_tooleval.cases.errors import Problem
from pytest_tooleval.cases.evidence import claims_found, evidence_found
from pytest_tooleval.cases.model import CaseFile, Step, case_today
from pytest_tooleval.hints import did_you_mean
from pytest_tooleval.tools.names import (
    BUILTIN_TOOL_NAMES,
    READ_ONLY_BUILTINS,
    WRITE_BUILTINS,
)


def check_evidence_value(value: str, step: Step, language: str = "en",
                         today: date | None = None) -> tuple[str, str] | None:
    """Why one evidence alternative could not fail, with the fix; None when it is sound.
    The echo test uses scoring's matcher on the case's clock (``today``): "18" is refused
    for "what is 18 * 1000?", "12 March" for "what's the date today?"; "version 3.7" is
    accepted for a message that holds 37."""
    stripped = value.strip()
    if not stripped:
        return ("empty evidence value", "remove it, or write the value the answer must contain")
    if len(stripped) == 1:
        kind = "single digit" if stripped.isdigit() else "single character"
        return (
            f"evidence is a {kind}: it matches almost any answer",
            "use a distinctive value the tool returns (an amount, an id, a name)",
        )
    if evidence_found([stripped], step.message, language):
        return (
            "evidence appears in the step's own message: the model could echo it",
            "use a value only the tool's result contains",
        )
    if today is not None and evidence_found([stripped], step.message, language, today):
        return (
            "evidence is the day the step's message names by a day word ('today', 'bugün') "
            "on the case's clock: an answer that echoes the word is read as that day",
            "ask without the day word (\"what's the date?\"), or use a value only the "
            "tool's result contains")
    return None


#: A ``wrong`` list fits a screen: at most this many items, this many characters in all.
MAX_WRONG_ITEMS = 8
MAX_WRONG_CHARS = 200


def check_wrong(step: Step, language: str = "en") -> list[tuple[str, str, str | None]]:
    """Why the step's ``wrong`` list is unsound, each with the fix and the item; empty when
    it is sound. A wrong claim may not be one a right answer makes: none may be in the
    step's evidence or its own message (the oracle adds: nor in the gold path's output)."""
    found: list[tuple[str, str, str | None]] = []
    size = sum(len(item) for item in step.wrong)
    if len(step.wrong) > MAX_WRONG_ITEMS or size > MAX_WRONG_CHARS:
        found.append((
            f"'wrong' holds {len(step.wrong)} items of {size} characters: more than a screen "
            f"(at most {MAX_WRONG_ITEMS} items, {MAX_WRONG_CHARS} characters in all)",
            "keep the few claims that make this answer wrong (the inverted direction, the "
            "wrong value); evidence says what a right answer holds", None))
    for item in step.wrong:
        if len(item.strip()) < 2:
            found.append(("a 'wrong' item that is empty or one character matches almost any "
                          "answer", "write the wrong claim itself (\"fell\", \"1-1\")", item))
        elif any(claims_found([item], alt, language) for alts in
                 step.evidence_alternatives() for alt in alts):
            found.append(("a 'wrong' item is contained in the step's evidence: a right "
                          "answer would be marked wrong", "remove it, or make it the wrong "
                          "claim only (a phrase a right answer never holds)", item))
        elif claims_found([item], step.message, language):
            found.append(("a 'wrong' item is in the step's own message: an answer that "
                          "repeats the question would be marked wrong", "remove it, or write "
                          "the claim as the wrong answer states it", item))
    return found


def _schema_problem(schema: dict) -> str | None:
    import jsonschema  # only where a file declares inline tools

    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        where = "/".join(str(p) for p in exc.absolute_path)
        return f"{exc.message}" + (f" (at {where})" if where else "")
    if schema.get("type", "object") != "object":
        return "a tool's parameters must be an object schema"
    return None


def check_file(
    case_file: CaseFile, *, strict: bool = False
) -> list[Problem]:
    """Every guard of docs/format.md over one loaded file; ``strict`` adds the measuring
    guards (``measuring_problems``), which ``tooleval check --strict`` and ``--oracle`` run."""
    problems: list[Problem] = []
    available = case_file.available_names
    known = set(BUILTIN_TOOL_NAMES) | available

    for tool in case_file.tools:
        schema_problem = _schema_problem(tool.parameters)
        if schema_problem:
            problems.append(
                Problem(
                    f"inline tool {tool.name!r}: parameters is not a valid JSON Schema: "
                    f"{schema_problem}",
                    'write an object schema: {type: object, properties: {...}, required: [...]}',
                    field="tools.parameters",
                )
            )
        if tool.name in BUILTIN_TOOL_NAMES:
            problems.append(
                Problem(
                    f"inline tool {tool.name!r} has the name of a built-in tool",
                    "rename the inline tool; two tools may not share a name in one run",
                    field="tools",
                    value=tool.name,
                )
            )

    for name, count in Counter(case_file.inline_tool_names).items():
        if count > 1:
            problems.append(Problem(
                f"{count} inline tools are named {name!r}; one would silently replace the "
                "other", "remove or rename all but one", field="tools", value=name))
    for name, count in Counter(case_file.requires).items():
        if count > 1:
            problems.append(Problem(f"'requires' lists {name!r} {count} times",
                                    "list each tool once", field="requires", value=name))
    for name, count in Counter(case.name for case in case_file.cases).items():
        if count > 1:
            problems.append(
                Problem(
                    f"{count} cases are named {name!r}; names must be unique in a file",
                    "rename all but one (the name becomes the pytest node id)",
                    case=name,
                    field="name",
                )
            )

    # A requires entry no step names, close to a tool the steps name but do not require,
    # is one name spelt two ways: said once, not as an unknown tool in every step.
    steps = [step for case in case_file.cases for step in case.steps]
    named = {tool for step in steps for tool in
             (*step.expected_tools, *step.forbidden, *(call.tool for call in step.gold or []))}
    unnamed = [name for name in case_file.requires
               if name not in named | set(BUILTIN_TOOL_NAMES)]
    expected = {tool for step in steps for tool in step.expected_tools}
    for spelt in sorted(named - available):
        if spelt in known and spelt not in expected:
            continue  # a known tool only forbidden or in gold need not be required
        for entry in difflib.get_close_matches(spelt, unnamed, n=1):
            problems.append(Problem(
                f"'requires' lists {entry!r}, but the steps name {spelt!r}",
                f"spell the tool's name the same in 'requires' and in the steps, or add "
                f"{spelt!r} to 'requires'", field="requires", value=entry))
            known, available = known | {spelt}, available | {spelt}

    today = case_today(case_file)
    for case in case_file.cases:
        if case.category == "irrelevance" and any(step.routes for step in case.steps):
            problems.append(
                Problem(
                    "an irrelevance case may not expect a tool",
                    "remove 'expect', or change the category to 'tool' or 'chain'",
                    case=case.name,
                    field="expect",
                )
            )
        if case.category == "tool" and not all(step.routes for step in case.steps):
            # It would count twice: on the tool axis and, as a step that expects no tool,
            # on the irrelevance axis (scoring/outcome.axis_values).
            problems.append(
                Problem(
                    "a tool case must expect a tool",
                    "add 'expect', or change the category to 'irrelevance' (a message that "
                    "needs no tool)",
                    case=case.name,
                    field="expect",
                )
            )
        for number, step in enumerate(case.steps, start=1):
            problems.extend(_check_step(case.name, number, step, known, available,
                                        case_file.language, today))
    if strict:
        problems += measuring_problems(case_file)
    return problems


def measuring_problems(case_file: CaseFile) -> list[Problem]:
    """The strict guards (see ``check_file``): writes measured by what they wrote,
    forbidden meaning harm."""
    problems: list[Problem] = []
    for case in case_file.cases:
        for number, step in enumerate(case.steps, start=1):
            writes = [tool for tool in step.expected_tools if tool in WRITE_BUILTINS]
            if writes and step.args is None and not case.checks_after(number - 1):
                problems.append(Problem(
                    f"write step ({', '.join(writes)}) has neither 'args' nor a state check: "
                    "any call of the tool passes, whatever it wrote",
                    "add 'after' (the file, event, reminder, message or commit it must leave) "
                    "or 'args' (the accepted arguments)",
                    case=case.name, step=number, field="after",
                ))
            harmless = [tool for tool in step.forbidden if tool in READ_ONLY_BUILTINS]
            if harmless and not step.forbidden_why:
                problems.append(Problem(
                    f"forbids the read-only tool(s) {', '.join(harmless)}: a harmless look "
                    "becomes a hard FAIL",
                    "remove it from 'forbidden', or say why it harms here in 'forbidden_why' "
                    "(a private folder, say)",
                    case=case.name, step=number, field="forbidden", value=harmless[0],
                ))
    return problems


def _check_step(
    case: str, number: int, step: Step, known: set[str], available: set[str],
    language: str = "en", today: date | None = None,
) -> list[Problem]:
    problems: list[Problem] = []

    def problem(message: str, fix: str, field: str, value: str | None = None) -> None:
        problems.append(Problem(message, fix, case=case, step=number, field=field, value=value))

    named = {"expect": step.expected_tools, "forbidden": step.forbidden,
             "gold": [call.tool for call in step.gold or []]}
    for field_name, tools in named.items():
        for tool in tools:
            if tool not in known:
                problem(
                    f"unknown tool {tool!r}",
                    f"check the spelling{did_you_mean(tool, known)}, or add the tool to the "
                    "file's 'requires' (or declare it under 'tools' in a scenario)",
                    field_name,
                    tool,
                )
    if step.gold and not step.routes:
        problem(
            "a step that expects no tool has a gold path: a competent assistant calls nothing",
            "remove 'gold', or add 'expect'",
            "gold",
        )
    for tool in step.expected_tools:
        if tool in known and tool not in available:
            problem(
                f"expected tool {tool!r} is not in the file's 'requires'",
                f"add {tool!r} to 'requires' so a missing tool stops the run instead of "
                "being scored as a model failure",
                "expect",
                tool,
            )
    for tool in sorted(set(step.expected_tools) & set(step.forbidden)):
        problem(
            f"tool {tool!r} is both expected and forbidden",
            "remove it from one of the two lists",
            "forbidden",
            tool,
        )
    for alternatives in step.evidence_alternatives():
        if not alternatives:
            problem("an evidence item is an empty list of alternatives", "remove it", "evidence")
        for value in alternatives:
            found = check_evidence_value(value, step, language, today)
            if found:
                problem(found[0], found[1], "evidence", value)
    for message, fix, item in check_wrong(step, language):
        problem(message, fix, "wrong", item)
    if step.args is not None and not step.routes:
        problem(
            "'args' constrains the expected call, but the step expects no tool",
            "add 'expect', or remove 'args'",
            "args",
        )
    if step.args == {}:
        problem(
            "'args' is empty: it accepts any call, so it measures nothing",
            'list the accepted values of a parameter ({"unit": ["celsius", ""]}), or remove '
            "'args'",
            "args",
        )
    for parameter, accepted in (step.args or {}).items():
        if not accepted:
            problem(
                f"argument {parameter!r} has an empty list of accepted values",
                'list the accepted values ("" means the parameter may be omitted)',
                "args",
            )
    return problems
