"""Concurrent tool loops in one process (a profile's ``concurrency``) and replica lists,
against the loopback server with latency: the same results as one at a time, real overlap,
items in collection order, calls spread over replicas, a dead replica an ERROR, and
interruption still honest (serial and ``-n 2``)."""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Any

import pytest

from pytest_tooleval.models.http import HttpClient
from pytest_tooleval.models.profiles import ProfileError, resolve_profile
from tests.conftest import scenario
from tests.support.fake_openai import FakeOpenAI, Rule, answer, call
from tests.support.interrupt import stop_after
from tests.support.volatile import without


def _strip(value: Any) -> Any:
    return without(value)


def _weather_cases(count: int) -> list[dict[str, Any]]:
    return [{"name": f"c{i:02d}", "category": "tool", "steps": [
        {"message": f"weather number {i:02d} in izmir", "expect": "get_weather",
         "evidence": ["1017.4"]}]} for i in range(count)]


WEATHER_SCRIPT = [Rule("weather number", [call("get_weather", {"city": "Izmir"}),
                                          answer("It is 1017.4 °C.")])]


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _profile(project, urls: str | list[str], **fields: Any) -> None:
    lines = ["[models.fake]", f"base_url = {json.dumps(urls)}", 'model = "fake-model"',
             "retries = 1"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in fields.items()]
    project.write("tooleval.toml", "\n".join(lines) + "\n")


def _order(result: pytest.RunResult) -> list[str]:
    """Case node ids in the order the terminal reported them (-v)."""
    return [line.split(" ")[0] for line in result.outlines
            if line.startswith("scenarios/") and "::" in line.split(" ")[0]]


# --------------------------------------------------------------------- same results


def test_concurrency_gives_the_same_results_as_one_at_a_time(project, fake_model) -> None:
    """Mixed outcomes, two-step chains, built-in worlds written and checked, repeats with
    their own seeds: every case's result equals the serial run's apart from timings."""
    secret = "LANE-SECRET-7731"
    server = fake_model([
        Rule("write the secret", [call("write_file", {"path": "lane.txt", "content": secret}),
                                  answer("written")]),
        Rule("read the secret", [call("read_file", {"path": "lane.txt"}), answer("read")]),
        Rule("what is", [call("calculator", {"expression": "6*7"}), answer("It is 42.")]),
        Rule("weather number 03", [answer("no idea")]),  # a FAIL
        Rule("weather number", [call("get_weather", {"city": "Izmir"}),
                                answer("It is 1017.4 °C.")], seeds=(1234,)),
        Rule("weather number", [answer("I cannot tell.")], seeds=(1235,)),
        Rule("note that", [call("save_note", {"text": "1017.4"}), answer("Saved as N-4471.")]),
    ], latency=0.02)
    cases: list[dict[str, Any]] = _weather_cases(6)
    cases += [{"name": f"calc{i}", "category": "tool", "steps": [
        {"message": f"what is 6 * 7, question {'abcdef'[i]}?", "expect": "calculator",
         "evidence": ["42"]}]} for i in range(4)]
    cases += [{"name": f"writer{i}", "category": "chain", "steps": [
        {"message": f"write the secret file {i}", "expect": "write_file",
         "after": {"file": "lane.txt", "contains": secret}},
        {"message": "and read the secret back", "expect": "read_file"}]} for i in range(3)]
    cases += [{"name": f"reader{i}", "category": "tool", "steps": [
        {"message": f"read the secret file {i}", "expect": "read_file"}]} for i in range(4)]
    cases.append({"name": "chain", "category": "chain", "group": "notes", "steps": [
        {"message": "weather number 09 in izmir", "expect": "get_weather", "evidence": ["1017.4"]},
        {"message": "note that down for me", "expect": "save_note", "evidence": ["N-4471"]}]})
    project.write("scenarios/mixed.yaml", scenario(
        cases, requires=["calculator", "write_file", "read_file"]))
    runs = {}
    for concurrency in (1, 6):
        _profile(project, server.base_url, concurrency=concurrency)
        project.run("--tooleval-router", "all", "--tooleval-min-cases", "1",
                    "--tooleval-repeat", "2", builtin=True)
        report = project.report()
        assert report["run"]["concurrency"]["used"] == concurrency, report["run"]["concurrency"]
        runs[concurrency] = report
    serial, parallel = (_strip(runs[n]["cases"]) for n in (1, 6))
    assert [c["nodeid"] for c in parallel] == [c["nodeid"] for c in serial]
    assert parallel == serial
    outcomes = {c["nodeid"].split("::")[1]: c["outcome"] for c in runs[6]["cases"]}
    assert outcomes["c03[r1]"] == "FAIL" and outcomes["c00[r1]"] == "PASS"
    assert outcomes["c00[r2]"] == "FAIL"  # the second try's seed reached its own lane
    # Isolation: no reader saw a writer's file, every writer read its own.
    by_name = {c["nodeid"].split("::")[1]: c for c in runs[6]["cases"]}
    for name, case in by_name.items():
        text = json.dumps(case["steps"])
        assert (secret in text) == name.startswith("writer"), name
    assert _strip(runs[6]["summary"]) == _strip(runs[1]["summary"])


def test_concurrent_loops_overlap_and_items_report_in_collection_order(
        project, fake_model) -> None:
    """20 cases of 2 calls at 200 ms: 8 s one at a time; with 10 lanes a fraction of it.
    The first case is the slowest, so lanes finish later cases first: items still report
    in collection order."""
    from tests.support.fake_openai import delay

    server = fake_model([
        Rule("weather number 00", [delay(0.6, call("get_weather", {"city": "Izmir"})),
                                   answer("It is 1017.4 °C.")]),
        *WEATHER_SCRIPT], latency=0.2)
    _profile(project, server.base_url, concurrency=10)
    project.write("scenarios/demo.yaml", scenario(_weather_cases(20)))
    started = time.perf_counter()
    result = project.run("-v", "--tooleval-min-cases", "1", "-p", "no:randomly")
    wall = time.perf_counter() - started
    assert result.ret == 0, result.stdout.str()[-2000:]
    serial_model_time = 20 * 2 * 0.2 + 0.6
    assert wall < serial_model_time / 2, f"{wall:.1f} s: the tool loops did not overlap"
    assert server.peak_in_flight >= 5, server.peak_in_flight
    expected = [f"scenarios/demo.yaml::c{i:02d}" for i in range(20)]
    assert _order(result) == expected
    assert [c["nodeid"] for c in project.report()["cases"]] == expected


# ------------------------------------------------------------------------- replicas


def test_a_replica_list_spreads_cases_and_keeps_each_case_on_one_replica(
        project, fake_model) -> None:
    first, second = fake_model(WEATHER_SCRIPT, latency=0.05), fake_model(WEATHER_SCRIPT,
                                                                         latency=0.05)
    _profile(project, [first.base_url, second.base_url], concurrency=4)
    project.write("scenarios/demo.yaml", scenario(_weather_cases(12)))
    result = project.run("--tooleval-min-cases", "1")
    assert result.ret == 0, result.stdout.str()[-2000:]

    def case_messages(server: FakeOpenAI) -> list[str]:
        return [m["content"] for path, body in server.requests
                if path.endswith("/chat/completions") and isinstance(body, dict)
                for m in body["messages"][-3:] if m.get("role") == "user"
                and m["content"].startswith("weather number")]

    on_first, on_second = case_messages(first), case_messages(second)
    assert on_first and on_second, (len(on_first), len(on_second))
    assert not set(on_first) & set(on_second)  # a case's two calls went to one replica
    assert len(on_first) + len(on_second) == 24
    assert sorted(set(on_first) | set(on_second)) == \
        [f"weather number {i:02d} in izmir" for i in range(12)]
    assert project.report()["run"]["backend"]["replicas"] == [first.base_url, second.base_url]


@pytest.mark.parametrize("max_errors", [100, 1])
def test_a_replica_down_is_an_error_of_kind_backend(project, fake_model, max_errors) -> None:
    server = fake_model(WEATHER_SCRIPT, latency=0.05)
    _profile(project, [server.base_url, _closed_port_url()], concurrency=2)
    project.write("scenarios/demo.yaml", scenario(_weather_cases(8)))
    project.run("--tooleval-min-cases", "1", "--tooleval-max-errors", str(max_errors))
    report = project.report()
    outcomes = [c["outcome"] for c in report["cases"]]
    errors = [c["error"] for c in report["cases"] if c["outcome"] == "ERROR"]
    assert errors, outcomes
    assert all(e["kind"] == "backend" and e["detail"] == "unreachable" for e in errors), errors
    assert "FAIL" not in outcomes  # a dead replica is never the model's failure
    if max_errors == 100:
        assert len(outcomes) == 8 and "PASS" in outcomes
        assert report["run"]["interrupted"] is None
    else:
        assert report["run"]["interrupted"].endswith(f"{len(outcomes)} of 8 cases ran")
        assert outcomes[-1] == "ERROR" and len(outcomes) < 8


def test_http_client_picks_the_least_loaded_replica_in_turn() -> None:
    client = HttpClient(["http://a:1/v1", "http://b:2/v1", "http://c:3/v1"])
    assert client._acquire() == 0 and client._acquire() == 1  # two cases under way
    seen: list[tuple[int, int]] = []

    def case() -> None:
        with client.case_replica() as outer, client.case_replica() as inner:
            seen.append((outer, inner))  # a case's requests stay on its replica

    thread = threading.Thread(target=case)
    thread.start()
    thread.join()
    assert seen == [(2, 2)]  # c was the least loaded
    client._release(0)
    with client.case_replica() as again:
        assert again == 0  # a is idle again; b still busy
    assert client._replica_url("http://a:1/v1/chat/completions", 1) == \
        "http://b:2/v1/chat/completions"
    assert client._replica_url("http://a:1/completion", 2) == "http://c:3/completion"
    client.close()


@pytest.mark.parametrize("keep_alive", [False, True])
def test_closing_the_client_ends_a_request_in_flight_at_once(fake_model, keep_alive) -> None:
    """The end of a run (Ctrl-C, the error stop) closes the shared client while lanes wait
    on a server that does not answer: their requests end then, not at the profile's
    timeout (before, each waited it out, and the run's end waited 6 s for them). Not
    retried once closed."""
    from pytest_tooleval.models.base import ServerError
    from tests.support.fake_openai import delay

    server = fake_model([Rule("hang", [delay(60)])], keep_alive=keep_alive)
    client = HttpClient(server.base_url, timeout=60, retries=2, connections=2)
    ask = {"messages": [{"role": "user", "content": "hang"}]}
    if keep_alive:  # the hung request goes out on a connection an earlier one opened
        client.post("/chat/completions", {"messages": [{"role": "user", "content": "hi"}]})
    errors: list[BaseException] = []

    def hung() -> None:
        try:
            client.post("/chat/completions", ask)
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=hung, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while server.model_calls < 1 + keep_alive and time.monotonic() < deadline:
        time.sleep(0.01)
    client.close()
    thread.join(10)
    assert not thread.is_alive()
    assert len(errors) == 1 and isinstance(errors[0], ServerError), errors
    assert server.model_calls == 1 + keep_alive  # no retry after the close


@pytest.mark.parametrize(("fields", "message"), [
    ({"concurrency": 0}, "concurrency: Input should be greater than or equal to 1"),
    ({"concurrency": "many"}, "concurrency: Input should be a valid integer"),
    ({"base_url": []}, "base_url is an empty list"),
    ({"base_url": ["http://127.0.0.1:1/v1", "127.0.0.1:2/v1"]},
     "base_url '127.0.0.1:2/v1' must start with http:// or https://"),
    ({"base_url": ["http://127.0.0.1:1/v1", "http://127.0.0.1:1/v1"]}, "a replica twice"),
])
def test_bad_concurrency_or_replicas_are_refused_with_the_field_named(
        tmp_path, fields, message) -> None:
    table = {"base_url": "http://127.0.0.1:1/v1", **fields}
    with pytest.raises(ProfileError) as refused:
        resolve_profile("mine", {"mine": table}, tmp_path)
    assert message in str(refused.value)
    assert "[tool.tooleval.models.mine]" in str(refused.value)


def test_tools_not_known_to_be_thread_safe_keep_the_run_at_one(project, fake_model) -> None:
    server = fake_model(WEATHER_SCRIPT)
    _profile(project, server.base_url, concurrency=4)
    project.write("conftest.py", """
import pytest_tooleval

@pytest_tooleval.tool
def get_weather(city: str) -> str:
    "Current weather for a city."
    return "Izmir: 1017.4 C"
""")
    project.write("scenarios/demo.yaml",
                  scenario(_weather_cases(3), tools=[], requires=["get_weather"]))
    result = project.run("--tooleval-min-cases", "1")
    assert result.ret == 0, result.stdout.str()[-2000:]
    used = project.report()["run"]["concurrency"]
    assert used["requested"] == 4 and used["used"] == 1
    assert "python:" in used["why"] and "one case at a time" in used["why"]
    result.stdout.fnmatch_lines(["*concurrency 4 asked for, running one case at a time*"])


# ------------------------------------------------------------------ interruption


class _SlowSession:
    """Stands in for a forked ModelSession: each case takes ``seconds``."""

    def __init__(self, seconds: float, ran: list[str]) -> None:
        self.seconds, self.ran, self.closed = seconds, ran, False

    def run(self, ref: Any) -> Any:
        from pytest_tooleval.engine.session import CaseRun

        self.ran.append(ref.nodeid)
        time.sleep(self.seconds)
        return CaseRun([], None, self.seconds)

    def close(self) -> None:
        self.closed = True


def test_lanes_run_in_order_and_start_nothing_after_a_stop() -> None:
    from pytest_tooleval.engine.session import CaseRef
    from pytest_tooleval.run.lanes import Lanes

    ran: list[str] = []
    sessions = [_SlowSession(0.2, ran) for _ in range(3)]
    lanes = Lanes(sessions)  # type: ignore[arg-type]
    refs = [CaseRef(f"f::c{i}", "f", None, None) for i in range(12)]  # type: ignore[arg-type]
    started = time.perf_counter()
    lanes.submit(refs)
    for ref in refs[:3]:
        lanes.wait(ref)
    assert time.perf_counter() - started < 0.5  # three at once, not 0.6 s one by one
    assert ran[:3] == ["f::c0", "f::c1", "f::c2"]
    lanes.stop()
    lanes.submit([CaseRef("f::late", "f", None, None)])  # type: ignore[arg-type]
    assert lanes.join(timeout=2.0)
    assert "f::late" not in ran and len(ran) <= 6  # only the cases already in hand ran
    assert all(session.closed for session in sessions)


@pytest.mark.parametrize("workers", [0, 2])
def test_ctrl_c_with_concurrency_counts_only_reported_cases(project, fake_model, workers) -> None:
    from pytest_tooleval.run.journal import read_journal

    server = fake_model(WEATHER_SCRIPT, latency=0.1)
    _profile(project, server.base_url, concurrency=4)
    project.write("scenarios/demo.yaml", scenario(_weather_cases(24)))
    stop_after(project, 3)
    result = project.run("--tooleval-min-cases", "1", workers=workers, subprocess=True)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    report = project.report()
    run, done = report["run"], len(report["cases"])
    assert 3 <= done < 24
    assert run["cases_selected"] == 24 and run["cases_done"] == done
    assert run["interrupted"].endswith(f"{done} of 24 cases ran"), run["interrupted"]
    assert report["summary"]["deployability"]["verdict"] == "NOT VALID"
    journal = read_journal(project.path / "tooleval-report" / "journal.jsonl")
    assert len(journal.cases) == done and journal.end and journal.end["complete"] is False


@pytest.mark.parametrize("workers", [0, 2])
def test_maxfail_with_concurrency_stops_and_marks_the_run(project, fake_model, workers) -> None:
    server = fake_model([Rule("number 00", [answer("no idea")]),
                         Rule("number 01", [answer("no idea")]), *WEATHER_SCRIPT], latency=0.1)
    _profile(project, server.base_url, concurrency=4)
    project.write("scenarios/demo.yaml", scenario(_weather_cases(24)))
    project.run("--tooleval-min-cases", "1", "-p", "no:randomly", "--maxfail", "2",
                workers=workers)
    report = project.report()
    run, done = report["run"], len(report["cases"])
    assert done < 24 and run["cases_done"] == done
    assert run["interrupted"].endswith(f"{done} of 24 cases ran"), run["interrupted"]
    assert report["summary"]["deployability"]["verdict"] == "NOT VALID"
    assert run["concurrency"]["used"] == 4


def test_concurrency_under_xdist_keeps_several_loops_per_worker(project, fake_model) -> None:
    server = fake_model(WEATHER_SCRIPT, latency=0.2)
    _profile(project, server.base_url, concurrency=4)
    project.write("scenarios/demo.yaml", scenario(_weather_cases(24)))
    result = project.run("--tooleval-min-cases", "1", workers=2)
    assert result.ret == 0, result.stdout.str()[-2000:]
    assert len(project.report()["cases"]) == 24
    # Two workers one case at a time never have more than 2 generations in flight.
    assert server.peak_in_flight > 2, server.peak_in_flight


@pytest.mark.parametrize("workers", [0, 2])
def test_xdist_workers_count_against_the_server_slots(project, fake_model, workers) -> None:
    """llama-server with one slot: -n 2 sends two requests at once (each worker one), which
    the preflight did not say; one worker alone is within the slot, and says nothing."""
    server = fake_model(WEATHER_SCRIPT, props={"total_slots": 1})
    _profile(project, server.base_url)
    project.write("scenarios/demo.yaml", scenario(_weather_cases(4)))
    result = project.run("--tooleval-min-cases", "1", workers=workers)
    said = [line for line in result.outlines if "slot(s)" in line]
    assert len(said) == workers // 2, result.outlines
    assert all("sends 2 requests at once (-n 2 × concurrency 1) to a server with 1 slot(s)"
               in line and "start llama-server with --parallel 2" in line for line in said)
    preflight = project.report()["run"]["backend"]["preflight"]
    assert preflight.get("server_slots") == (1 if workers else None)


# ------------------------------------------------------- cache and resume across it


def _uncached(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _uncached(v) for k, v in value.items() if k not in ("cached", "cache")}
    if isinstance(value, list):
        return [_uncached(v) for v in value]
    return value


def test_a_cache_recorded_at_one_replays_at_four_with_no_model(project, fake_model) -> None:
    server = fake_model([Rule("number 01", [answer("no idea")]), *WEATHER_SCRIPT],
                        latency=0.02)
    _profile(project, server.base_url, concurrency=1)
    project.write("scenarios/demo.yaml", scenario(_weather_cases(8)))
    project.run("--tooleval-min-cases", "1", "--tooleval-cache", "replies")
    recorded = project.report()
    server.stop()
    _profile(project, server.base_url, concurrency=4)
    project.run("--tooleval-min-cases", "1", "--tooleval-cache", "replies",
                "--tooleval-cache-mode", "replay")
    replayed = project.report()
    assert replayed["run"]["concurrency"]["used"] == 4
    calls = [m for c in replayed["cases"] for s in c["steps"]
             for m in s["transcript"]["model_calls"]]
    assert len(calls) == 15 and all(m["cached"] for m in calls)
    assert _strip(_uncached(replayed["cases"])) == _strip(_uncached(recorded["cases"]))


def test_a_run_interrupted_at_one_resumes_at_four(project, fake_model) -> None:
    server = fake_model(WEATHER_SCRIPT, latency=0.02)
    _profile(project, server.base_url, concurrency=1)
    project.write("scenarios/demo.yaml", scenario(_weather_cases(10)))
    project.run("--tooleval-min-cases", "1")
    whole = _strip(project.report()["cases"])
    stop_after(project, 3)
    project.run("--tooleval-min-cases", "1", subprocess=True)
    assert len(project.report()["cases"]) < 10
    (project.path / "conftest.py").unlink()
    _profile(project, server.base_url, concurrency=4)
    result = project.run("--tooleval-min-cases", "1", "--tooleval-resume")
    assert result.ret == 0, result.stdout.str()[-2000:]
    report = project.report()
    assert report["run"]["interrupted"] is None and report["run"]["cases_done"] == 10
    assert _strip(report["cases"]) == whole


# ---------------------------------------------------------- a session of one's own

OWN_SESSION = '''
import copy
from pytest_tooleval.engine.session import ModelSession
from pytest_tooleval.models.base import Backend, ModelTurn, RawCall
from pytest_tooleval.router.base import Router, Routing
from pytest_tooleval.tools.base import ToolProvider, ToolResult, ToolSpec


class Plain(Backend):  # Backend's own fork(): None
    def complete(self, messages, tools):
        if messages[-1]["role"] == "tool":
            return ModelTurn(content="It is " + messages[-1]["content"])
        return ModelTurn(content="", calls=[RawCall("get_weather", '{"city": "Izmir"}', "c1")])

    def describe(self):
        return {"backend": "plain (conftest)", "grammar": "off"}

    def close(self):
        pass


class Forking(Plain):
    def fork(self):
        return copy.copy(self)


class Weather(ToolProvider):
    source = "weather"

    def list_tools(self):
        return [ToolSpec("get_weather", "Current weather for a city.",
                         {"type": "object", "properties": {"city": {"type": "string"}}},
                         self.source)]

    def call(self, name, arguments):
        return ToolResult("1017.4 C")

    def fork(self):
        return Weather()


class All(Router):
    def route(self, message, language, catalogue, keep=()):
        return Routing(tools=[spec.name for spec in catalogue])


def pytest_tooleval_make_session(config, settings, profile):
    return ModelSession(backend_factory=BACKEND, providers=[Weather()],
                        router_factory=lambda case_file: All())
'''


@pytest.mark.parametrize(("backend", "used"), [("Plain", 1), ("Forking", 3)])
def test_a_session_of_ones_own_runs_concurrently_only_where_it_can_fork(
        project, fake_model, backend, used) -> None:
    _profile(project, fake_model().base_url, concurrency=3)
    project.write("conftest.py", OWN_SESSION.replace("BACKEND", backend))
    project.write("scenarios/demo.yaml",
                  scenario(_weather_cases(4), tools=[], requires=["get_weather"]))
    result = project.run("--tooleval-min-cases", "1")
    assert result.ret == 0, result.stdout.str()[-2000:]
    concurrency = project.report()["run"]["concurrency"]
    assert concurrency["used"] == used, concurrency
    if used == 1:
        assert "the backend Plain serves one case at a time" in concurrency["why"]
