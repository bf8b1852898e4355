"""Issue 27, items 4 and 5: time and git output are bounded on the host.

A document planted in the world cannot stall ``read_document`` or every
``search_documents`` (``html.parser`` was quadratic on an unclosed construct); every tool
call has a wall clock, Python tools of the user included, and a tool that will not stop
does not hold the run; git's output is capped while git writes it (a 64 KiB object that
inflates to 64 MiB went whole into a host temp file), every git result is clipped, and a
path argument is a path, not pathspec magic.

Each test fails on the code before this work: a call that hangs there is run in a thread
and the test fails when it is not back in time (``_within``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from harness import Hostile, needs_jail

from pytest_tooleval.cases.model import CaseFile
from pytest_tooleval.engine.session import CaseRef, ModelSession
from pytest_tooleval.models.base import Backend, Message, ModelTurn, RawCall
from pytest_tooleval.router.base import Router, Routing
from pytest_tooleval.tools import base, deadline, jail
from pytest_tooleval.tools.base import (
    MAX_OUTPUT_CHARS,
    Catalogue,
    ProviderError,
    ToolResult,
    ToolSpec,
)
from pytest_tooleval.tools.builtin.documents import html_text
from pytest_tooleval.tools.doctor import plant_blob
from pytest_tooleval.tools.python import PythonToolProvider, tool
from tests.conftest import scenario
from tests.support.fake_openai import Rule, answer, call

#: The unclosed constructs ``html.parser`` rescans at every later "<", and the other
#: shapes tried against the new reader (quotes, sections, raw text, long runs).
HOSTILE_HTML = ["</", "<!--", "<?", "<![", "<a ", "<a", "<!", "<a x='", '<a b="', "<a b=",
                "<a\n", "<a x='>'", '<a x=">"', "<![CDATA[", "<![if", "<![x", "<script>",
                "<script></scrip", "</script", "<style>", "<!-- -- ", "-- ", "]] ",
                "<![CDATA[] ] ", "</a ", "</ ", "<a =========", "<a b='x' c=\"y\" ",
                "<a/>", "<x y=z/>", "<a '>", "<<", "< ", "&#", "&#1111111111", "&amp",
                "<!DOCTYPE ", "<p>x</p>", "\n\t "]


def _within(seconds: float, action: Callable[[], Any]) -> Any:
    """``action()``, failing the test when it takes more than ``seconds`` (it may hang)."""
    done: list[Any] = []
    thread = threading.Thread(target=lambda: done.append(action()), daemon=True)
    started = time.monotonic()
    thread.start()
    thread.join(seconds)
    if not done:
        pytest.fail(f"not back within {seconds} s" if thread.is_alive() else "it raised")
    assert time.monotonic() - started < seconds
    return done[0]


# -- item 4: parsers of untrusted files ------------------------------------------------------

@pytest.mark.parametrize("shape", ["</", "<!--", "<?", "<![", "<a "])
def test_a_hostile_html_document_is_read_in_linear_time(hostile: Hostile, shape: str) -> None:
    """512 KiB of one unclosed construct: ``read_document`` answers in well under a second
    a call (before: 64 KiB of "<a " took 39 s, 512 KiB did not end), and so does the next
    call."""
    page = hostile.world.home / "Documents" / "planted.html"
    page.write_text(shape * (512 * 1024 // len(shape)))
    result = _within(10, lambda: hostile.tools.provider.call(
        "read_document", {"path": "Documents/planted.html"}))
    assert not result.is_error and len(result.text) <= MAX_OUTPUT_CHARS + 100
    hostile.tools.ok("read_document", path="Documents/notes.txt")


def test_a_planted_html_document_does_not_stall_search_documents(hostile: Hostile) -> None:
    """``search_documents`` parses every document: three 512 KiB planted pages leave it
    answering, and finding the real one."""
    for number, shape in enumerate(("<a ", "<!--", "</")):
        planted = hostile.world.home / "Documents" / f"planted{number}.html"
        planted.write_text(shape * (512 * 1024 // len(shape)))
    result = _within(10, lambda: hostile.tools.provider.call(
        "search_documents", {"query": "Kestrel meeting"}))
    assert not result.is_error and "notes.txt" in result.text


def test_every_hostile_html_shape_is_linear() -> None:
    """The worst inputs found, at 1 MiB: each read in under 3 s (0.05 to 0.8 s measured on
    a 2-core machine), and 4 times the input never takes more than 16 times as long."""
    for shape in HOSTILE_HTML:
        small, large = (shape * (size // len(shape)) for size in (256 * 1024, 1024 * 1024))
        started = time.perf_counter()
        _within(10, lambda page=small: html_text(page))  # type: ignore[misc]
        quarter = time.perf_counter() - started
        started = time.perf_counter()
        _within(10, lambda page=large: html_text(page))  # type: ignore[misc]
        whole = time.perf_counter() - started
        assert whole < 3, (shape, whole)
        assert whole < 16 * quarter + 0.2, (shape, quarter, whole)


def test_a_numeric_reference_of_thousands_of_digits_is_text() -> None:
    """``html.unescape`` raises on a reference past Python's digit limit: U+FFFD here."""
    assert html_text("<p>a &#" + "1" * 5000 + "; b</p>") == "a \ufffd b"


# -- item 4: the wall clock of a tool call ---------------------------------------------------

_RELEASE = threading.Event()


@tool
def spin(text: str) -> str:
    """A tool that never returns: a pure Python loop."""
    count = 0
    while True:
        count += 1


@tool
def wait_in_c(text: str) -> str:
    """A tool blocked inside one C call (a lock wait) until the test releases it."""
    _RELEASE.wait(60)
    return "released"


@tool
def echo(text: str) -> str:
    """Echo the text."""
    return text


def _tool_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "tooleval-tool-call"]


def _expired(call: Callable[[], ToolResult]) -> str:
    """The message of the machine's failure ``call`` raises (a tool past its clock), or
    what it returned instead."""
    def caught() -> str:
        try:
            return f"returned {call().text!r}"
        except ProviderError as exc:
            return str(exc)

    return str(_within(10, caught))


def test_a_python_tool_that_loops_is_stopped_at_the_clock(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The call is the machine's failure naming the tool, the limit and the option at
    0.5 s, never a tool error the model is scored on; the loop itself is ended (its thread
    is gone), and the next call works."""
    monkeypatch.setattr(base, "TOOL_TIMEOUT_S", 0.5, raising=False)
    catalogue = Catalogue([PythonToolProvider([spin, echo], source="python:test")])
    message = _expired(lambda: catalogue.call("spin", {"text": "x"}))
    assert message.startswith("spin did not finish within 0.5 s") and \
        "machine was busy" in message and "--tooleval-tool-timeout" in message
    deadline = time.monotonic() + 5
    while _tool_threads() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _tool_threads(), "the looping tool is still running"
    assert catalogue.call("echo", {"text": "next"}).text == "next"


def test_a_tool_blocked_in_c_does_not_hold_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """A thread cannot be stopped inside a C call: the caller still gets its answer at
    the clock (the call ends in the background)."""
    monkeypatch.setattr(base, "TOOL_TIMEOUT_S", 0.3, raising=False)
    catalogue = Catalogue([PythonToolProvider([wait_in_c, echo], source="python:test")])
    _RELEASE.clear()
    try:
        message = _expired(lambda: catalogue.call("wait_in_c", {"text": "x"}))
        assert message.startswith("wait_in_c did not finish within 0.3 s"), message
        assert catalogue.call("echo", {"text": "next"}).text == "next"
    finally:
        _RELEASE.set()


@tool
def wait_briefly_in_c(text: str) -> str:
    """A tool blocked inside one C call for 3 s."""
    threading.Event().wait(3)
    return "done"


@contextlib.contextmanager
def _traced() -> Iterator[None]:
    """The calling thread under a trace function, as under coverage or a debugger."""
    previous = sys.gettrace()
    sys.settrace(lambda *args: None)
    try:
        yield
    finally:
        sys.settrace(previous)


def test_under_a_tracer_a_tool_blocked_in_c_leaves_the_caller_free(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """On CPython 3.11 under a trace function, an exception set for a thread inside a C
    call kept every traced thread spinning until that call returned (the caller stuck
    for the rest of the 3 s wait; for good behind a call that never returns): the caller
    gets its answer at the clock, and the next call works."""
    monkeypatch.setattr(base, "TOOL_TIMEOUT_S", 0.3, raising=False)
    catalogue = Catalogue([PythonToolProvider([wait_briefly_in_c, echo], source="python:test")])
    with _traced():
        started = time.monotonic()
        with pytest.raises(ProviderError, match=r"within 0\.3 s"):
            catalogue.call("wait_briefly_in_c", {"text": "x"})
        took = time.monotonic() - started
        following = catalogue.call("echo", {"text": "next"})
    assert took < 1.5, f"the call came back after {took:.2f} s (clock 0.3 s)"
    assert following.text == "next"


def test_under_a_tracer_a_python_tool_that_loops_is_still_stopped(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The exception is held back only from a thread that used no CPU just before the
    clock (one waiting in a C call): a looping tool under a trace function is still ended
    at the clock."""
    monkeypatch.setattr(base, "TOOL_TIMEOUT_S", 0.5, raising=False)
    judged: list[bool] = []
    idle = deadline._idle

    def judge(ident: int) -> bool:
        judged.append(idle(ident))
        return judged[-1]

    monkeypatch.setattr(deadline, "_idle", judge)
    catalogue = Catalogue([PythonToolProvider([spin, echo], source="python:test")])

    def traced_call() -> ToolResult:
        with _traced():  # in the thread that makes the call
            return catalogue.call("spin", {"text": "x"})

    assert _expired(traced_call).startswith("spin did not finish within 0.5 s")
    deadline_ = time.monotonic() + 5
    while _tool_threads() and time.monotonic() < deadline_:
        time.sleep(0.05)
    assert not _tool_threads(), "the looping tool is still running"
    if sys.version_info[:2] == (3, 11):
        assert judged == [False], judged  # the looping thread was looked at and seen busy


def test_a_built_in_tool_past_its_clock_is_the_machines_failure(
        hostile: Hostile, monkeypatch: pytest.MonkeyPatch) -> None:
    """``search_documents`` over 40 MiB of planted text runs for seconds: at a 0.2 s clock
    it is stopped there, an ERROR naming the tool and the option (never a tool error the
    model is scored on), and the world's tools go on working."""
    for number in range(40):
        planted = hostile.world.home / "Documents" / f"bulk{number}.txt"
        planted.write_text("kestrel word " * (1024 * 1024 // 13))
    monkeypatch.setattr(base, "TOOL_TIMEOUT_S", 0.2, raising=False)
    catalogue = Catalogue([hostile.tools.provider])
    message = _expired(lambda: catalogue.call("search_documents", {"query": "kestrel"}))
    assert message.startswith("search_documents did not finish within 0.2 s"), message
    assert not catalogue.call("read_document", {"path": "Documents/notes.txt"}).is_error


@needs_jail
def test_a_jailed_call_ends_at_its_tool_calls_clock(
        hostile: Hostile, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tool clock shorter than the jail's own (10 s): the jail ends the snippet at the
    call's clock, so nothing it would have written later reaches the case's world after
    the model was answered (it wrote late.txt 2 s later, after the case went on)."""
    monkeypatch.setattr(base, "TOOL_TIMEOUT_S", 1.0, raising=False)
    catalogue = Catalogue([hostile.tools.provider])
    code = "import time\ntime.sleep(2)\nopen('late.txt', 'w').write('late')\n"
    started = time.monotonic()
    result = _expired(lambda: catalogue.call("run_python", {"code": code}))
    assert time.monotonic() - started < 2, result
    # Stopped by the jail at what was left of the 1 s clock less the caller's grace (a
    # sleeping snippet is the model's), or on a busy machine by the tool call's own clock.
    assert re.search(r"killed after 0\.\d+ s wall-clock|within 1 s, the time limit",
                     result), result
    time.sleep(2.5)
    assert not (hostile.world.home / "late.txt").exists()
    assert not catalogue.call("read_document", {"path": "Documents/notes.txt"}).is_error



@needs_jail
def test_a_snippet_the_harness_left_no_time_is_the_machines_failure(
        hostile: Hostile, monkeypatch: pytest.MonkeyPatch) -> None:
    """The harness's own staging of the home takes 0.8 s of a 1 s clock (a busy machine):
    the snippet, a loop, had under a quarter of the clock on CPU, so the call is an ERROR
    naming run_python, the limit and the option (before: the model was told its snippet
    was killed, or that the call took too long). Failed in CI at 5b52c92 on the message
    alone: the tool call's clock had ended first."""
    from pytest_tooleval.tools import jailhome

    copy_in = jailhome.copy_in

    def slow_copy_in(*args: Any) -> Any:
        end = time.monotonic() + 0.8
        while time.monotonic() < end:
            pass
        return copy_in(*args)

    monkeypatch.setattr(jailhome, "copy_in", slow_copy_in)
    monkeypatch.setattr(base, "TOOL_TIMEOUT_S", 1.0, raising=False)
    catalogue = Catalogue([hostile.tools.provider])
    message = _expired(lambda: catalogue.call("run_python", {"code": "while True: pass"}))
    # The jail's own verdict, or, where killing and copying back passed the clock's grace
    # on a loaded machine (CI), the tool call's clock: both the machine's failure.
    assert re.match(r"run_python(: the snippet)? did not finish within 1 s, the time limit "
                    r"of one tool call: the machine was busy", message), message
    assert "raise --tooleval-tool-timeout" in message
    assert not catalogue.call("read_document", {"path": "Documents/notes.txt"}).is_error


@needs_jail
def test_a_snippet_that_slept_then_looped_is_the_models(
        hostile: Hostile, monkeypatch: pytest.MonkeyPatch) -> None:
    """A snippet the machine gave all the time it asked for, asleep for most of its clock and
    running at the clock (a polling loop caught between two sleeps), never ends: the
    model's failure, its note (before: an ERROR "the machine was busy", its CPU under a
    quarter of the clock and not asleep at that moment)."""
    monkeypatch.setattr(base, "TOOL_TIMEOUT_S", 4.0, raising=False)
    catalogue = Catalogue([hostile.tools.provider])
    code = "import time\ntime.sleep(2.8)\nwhile True:\n    pass\n"
    result = _expired(lambda: catalogue.call("run_python", {"code": code}))
    assert re.search(r"note: killed after 3\.\d+ s wall-clock", result), result


@needs_jail
def test_a_snippet_whose_own_processes_crowd_the_cpus_is_the_models(
        hostile: Hostile, monkeypatch: pytest.MonkeyPatch) -> None:
    """A snippet that forks four spinners per CPU (past the sandbox's guard, as a hostile
    one does): each waits for a CPU most of the clock,
    kept from it by its siblings, not by the machine. Their waits, summed, passed the clock,
    and the call was an ERROR "the machine was busy (the snippet had 0 s to itself)" (a CI
    failure); its processes had the CPUs all along: the model's failure, its note."""
    monkeypatch.setattr(base, "TOOL_TIMEOUT_S", 3.0, raising=False)
    catalogue = Catalogue([hostile.tools.provider])
    spinners = 4 * len(os.sched_getaffinity(0))
    code = ("import __main__\n__main__._check = lambda *a: None\n__main__.DENY = set()\n"
            f"import os\nfor _ in range({spinners}):\n    try:\n        if os.fork() == 0:\n"
            "            break\n    except BlockingIOError:  # the jail's process cap\n"
            "        break\nwhile True:\n    pass\n")
    result = _expired(lambda: catalogue.call("run_python", {"code": code}))
    assert re.search(r"note: killed after 2\.\d+ s wall-clock", result), result


def test_waited_counts_every_process_kept_from_a_cpu() -> None:
    """A process, its child and their two children, pinned to one CPU and spinning for 1 s
    of wall clock, waited about 3 s for it in all (the first alone under 1); a sleeping
    process about none."""
    code = """import os, time
os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
ends, first = time.monotonic() + 1, os.getpid()
os.fork()
os.fork()
while time.monotonic() < ends:
    pass
if os.getpid() == first:
    print("ready", flush=True)
time.sleep(30)
"""
    spinners = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                                start_new_session=True)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert spinners.stdout is not None and spinners.stdout.readline() == b"ready\n"
        time.sleep(0.5)
        assert jail.cpu_times(spinners.pid)[1] >= 1.5, jail.cpu_times(spinners.pid)
        assert jail.cpu_times(sleeper.pid)[1] < 0.2, jail.cpu_times(sleeper.pid)
    finally:
        os.killpg(spinners.pid, 9)
        sleeper.kill()
        spinners.wait()
        sleeper.wait()



def test_cpu_times_count_every_thread() -> None:
    """A snippet's loop in a thread (its main thread joining it), beside a hog on its one CPU:
    only the main thread's schedstat was read, asleep in join, so a snippet the machine
    starved had all the clock to itself, and its timeout was the model's."""
    code = """import os, threading
os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
def spin():
    while True:
        pass
threading.Thread(target=spin).start()
"""
    hog = subprocess.Popen([sys.executable, "-c", code.replace("threading.Thread(target=spin)"
                                                                ".start()", "spin()")])
    snippet = subprocess.Popen([sys.executable, "-c", code])
    try:  # on a busy machine the pair may get little of its CPU: wait for it, bounded
        deadline = time.monotonic() + 20
        while min(times := jail.cpu_times(snippet.pid)) < 0.3:  # (ran, waited)
            assert time.monotonic() < deadline, times
            time.sleep(0.25)
    finally:
        hog.kill()
        snippet.kill()
        hog.wait()
        snippet.wait()

# -- item 4: the wall clock of a case ---------------------------------------------------------

@tool
def slow_lookup(key: str) -> str:
    """Look a key up in the slow directory."""
    time.sleep(0.4)
    return f"{key}: found"


class _ShowAll(Router):
    def route(self, message: str, language: str, catalogue: list[ToolSpec],
              keep: tuple[str, ...] = ()) -> Routing:
        return Routing(tools=[spec.name for spec in catalogue])


class _Looking(Backend):
    """Asks for one more lookup on every turn, never answering; "thanks" gets an answer."""

    mode = "off"

    def complete(self, messages: list[Message], tools: list[ToolSpec]) -> ModelTurn:
        if "thanks" in str(messages[1]["content"]):
            return ModelTurn(content="Any time!")
        return ModelTurn(content="", calls=[RawCall("slow_lookup", f'{{"key": "k{len(messages)}"}}',
                                                    f"c{len(messages)}")])


_CASES = CaseFile.model_validate({"name": "clock", "language": "en", "cases": [
    {"name": "endless", "category": "chain", "steps": [
        {"message": "look up every key", "expect": "slow_lookup"},
        {"message": "and again", "expect": "slow_lookup"}]},
    {"name": "thanks", "category": "irrelevance", "steps": [{"message": "thanks!"}]}]})


def test_a_case_past_its_clock_is_an_error_of_kind_timeout() -> None:
    """Two steps of up to 30 lookups of 0.4 s each (24 s): at a 1.5 s case clock the case
    ends as an ERROR of kind ``timeout`` within about that, with its transcript so far,
    and the next case runs as usual."""
    session = ModelSession(backend_factory=_Looking,
                           providers=[PythonToolProvider([slow_lookup], "python:test")],
                           router_factory=lambda case_file: _ShowAll(), max_steps=30,
                           case_timeout=1.5, tool_timeout=5)
    endless, thanks = (CaseRef(f"clock.yaml::{case.name}", "clock.yaml", _CASES, case)
                       for case in _CASES.cases)
    run = _within(10, lambda: session.run(endless))
    assert run.error is not None and run.error.kind == "timeout", run.error
    assert "1.5 s" in run.error.message and run.duration_s < 3
    assert run.transcripts and run.transcripts[0].attempts
    assert session.run(thanks).error is None


CLOCK_CONFTEST = '''
import time

from pytest_tooleval import tool


@tool
def slow_lookup(key: str) -> str:
    """Look a key up in the slow directory."""
    time.sleep(0.4)
    return f"{key}: found"


@tool
def frozen_lookup(key: str) -> str:
    """Look a key up in the archive (it never answers in time)."""
    time.sleep(3)
    return "too late"
'''


def test_the_clocks_through_a_run(project: Any, fake_model: Any) -> None:
    """``--tooleval-tool-timeout 0.5 --tooleval-case-timeout 2``: a frozen tool is an
    ERROR naming it and the option (before: a tool error the model was scored on); a case
    that keeps calling a slow tool (six calls of 0.5 s) is an ERROR of kind ``timeout``;
    the case after them passes."""
    server = fake_model([
        Rule("archive", [call("frozen_lookup", {"key": "a"}), answer("The archive is slow.")]),
        Rule("every key", [call("slow_lookup", {"key": f"k{i}"}) for i in range(6)]),
        Rule("thanks", [answer("Any time!")]),
    ])
    project.profile(server)
    project.pytester.makeconftest(CLOCK_CONFTEST)
    project.write("scenarios/clock.yaml", scenario([
        {"name": "frozen", "category": "tool", "steps": [
            {"message": "look key a up in the archive", "expect": "frozen_lookup"}]},
        {"name": "endless", "category": "tool", "steps": [
            {"message": "look up every key", "expect": "slow_lookup"}]},
        {"name": "thanks", "category": "irrelevance", "steps": [{"message": "thanks!"}]},
    ], tools=[], requires=["frozen_lookup", "slow_lookup"]))
    project.run("--tooleval-tool-timeout", "0.5", "--tooleval-case-timeout", "2",
                "--tooleval-max-errors", "5")
    cases = project.cases()
    frozen = cases["frozen"]
    assert frozen.outcome == "ERROR" and frozen.error is not None
    assert frozen.error.kind == "provider" and frozen.error.message.startswith(
        "frozen_lookup did not finish within 0.5 s"), frozen.error
    endless = cases["endless"]
    assert endless.outcome == "ERROR" and endless.error is not None
    assert endless.error.kind == "timeout" and "2 s" in endless.error.message
    assert cases["thanks"].outcome == "PASS"


def test_a_built_in_tool_slowed_by_the_machine_is_never_scored(
        project: Any, fake_model: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """``write_file`` kept 1 s by a busy machine at ``--tooleval-tool-timeout 0.3``: the
    case is an ERROR naming the tool and the option (before: PARTIAL, the file missing
    counted against the model), and the case after it passes."""
    from pytest_tooleval.tools.builtin import provider

    real = provider.ALL_TOOLS["write_file"]

    def slow(ctx: Any, args: dict[str, Any]) -> Any:
        end = time.monotonic() + 1
        while time.monotonic() < end:
            pass
        return real.run(ctx, args)

    monkeypatch.setitem(provider.ALL_TOOLS, "write_file", dataclasses.replace(real, run=slow))
    server = fake_model([Rule("save", [call("write_file", {"path": "n.txt", "content": "hi"}),
                                       answer("Saved it to n.txt.")]),
                         Rule("thanks", [answer("Any time!")])])
    project.profile(server)
    project.write("scenarios/save.yaml", scenario([
        {"name": "save", "category": "tool", "steps": [
            {"message": "save hi to n.txt", "expect": "write_file", "after": {"file": "n.txt"}}]},
        {"name": "thanks", "category": "irrelevance", "steps": [{"message": "thanks!"}]},
    ], tools=[], requires=["write_file"]))
    project.run("--tooleval-router", "all", "--tooleval-tool-timeout", "0.3", builtin=True)
    cases = project.cases()
    error = cases["save"].error
    assert cases["save"].outcome == "ERROR" and error is not None, cases["save"].outcome
    assert error.message.startswith("write_file did not finish within 0.3 s") and \
        "raise --tooleval-tool-timeout" in error.message, error
    assert cases["thanks"].outcome == "PASS"


# -- item 5: git bounded on the host ---------------------------------------------------------

REPO = "Projects/kestrel"


def _plant_blob(h: Hostile, size: int) -> str:
    """A loose object of ``size`` bytes of "A" (about 64 KiB on disk for 64 MiB), written
    into the repository as ``run_python`` can."""
    return plant_blob(h.world.repo, size)


@needs_jail
def test_git_past_its_clock_is_the_machines_failure(
        hostile: Hostile, monkeypatch: pytest.MonkeyPatch) -> None:
    """git given no time (its own clock at 0 s): an ERROR naming the tool and its clock
    (before: "git took too long", a tool error the model was scored on)."""
    from pytest_tooleval.tools.builtin import gittools

    monkeypatch.setattr(gittools, "GIT_TIMEOUT", 0)
    with pytest.raises(ProviderError, match=r"^git_log: git did not finish within 0 s, its "
                       "own wall clock: the machine was busy"):
        hostile.tools.provider.call("git_log", {})


@needs_jail
def test_a_git_bomb_never_reaches_the_host_disk(
        hostile: Hostile, monkeypatch: pytest.MonkeyPatch) -> None:
    """``git_show`` of a 64 MiB blob: no regular file on the host receives git's output
    (before: all 64 MiB went into a temp file), git is stopped at the cap, the result is
    clipped, and the next git call works."""
    sha = _plant_blob(hostile, 64 * 2**20)
    written: list[int] = []
    real_run = jail.run

    def run(*args: Any, **kwargs: Any) -> Any:
        outcome = real_run(*args, **kwargs)
        for stream in (kwargs["stdout"], kwargs["stderr"]):
            fd = stream if isinstance(stream, int) else stream.fileno()
            info = os.fstat(fd)
            if stat.S_ISREG(info.st_mode):
                written.append(info.st_size)
        return outcome

    monkeypatch.setattr(jail, "run", run)
    started = time.monotonic()
    shown = hostile.tools.ok("git_show", ref=sha)
    assert time.monotonic() - started < 10
    assert max(written, default=0) <= 4 * 2**20, written
    assert len(shown) <= MAX_OUTPUT_CHARS + 100 and "truncated" in shown
    assert "main" in hostile.tools.ok("git_status")


@needs_jail
def test_git_branches_and_git_status_are_clipped(hostile: Hostile) -> None:
    """2,000 branches of 150-character names, 500 untracked files of 120-character names:
    both results are clipped like every tool's (before: 300,000 and 60,000 characters)."""
    repo = hostile.world.repo
    head = (repo / ".git" / "refs" / "heads" / "main").read_text()
    for number in range(2000):
        (repo / ".git" / "refs" / "heads" / f"b{number:04d}{'x' * 145}").write_text(head)
    for number in range(500):
        (repo / f"untracked{number:03d}{'y' * 108}.txt").write_text("new\n")
    branches = hostile.tools.ok("git_branches")
    status = hostile.tools.ok("git_status")
    for text in (branches, status):
        assert len(text) <= MAX_OUTPUT_CHARS + 100 and "truncated" in text


@needs_jail
@pytest.mark.parametrize("magic", [":(glob)**", ":(exclude)README.md", ":!README.md",
                                   ":(icase)SRC", "*"])
def test_a_path_argument_is_never_pathspec_magic(hostile: Hostile, magic: str) -> None:
    """``git_log`` with a path that is pathspec magic: git looks for a file of that name
    (there is none), instead of every file the magic matches."""
    assert hostile.tools.ok("git_log", path=magic) == "no commits found"
    assert "Raise timeout" in hostile.tools.ok("git_log", path="src")
