"""`--tooleval-check`: the check as pytest items, without a model."""

from __future__ import annotations

from tests.conftest import scenario


def test_check_items_pass_and_fail_without_contacting_a_model(project) -> None:
    project.profile("http://127.0.0.1:9/v1")  # nothing listens: any model call would ERROR
    project.write("scenarios/demo.yaml", scenario([
        {"name": "good", "category": "tool", "steps": [
            {"message": "what's the weather in Izmir?", "expect": "get_weather",
             "evidence": ["17.4"]}]},
        {"name": "thanks", "category": "irrelevance", "steps": [{"message": "thanks a lot"}]},
    ]))
    project.write("benchmarks/gh.json", {"name": "gh", "requires": ["gh_search_issues"],
                                         "cases": [{"name": "issues", "category": "irrelevance",
                                                    "steps": [{"message": "cheers"}]}]})
    result = project.run("--tooleval-check", "-rf")
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed") == 2 and outcomes.get("failed") == 1
    result.stdout.fnmatch_lines(["*requires*gh_search_issues*which no provider on this machine*"])
    assert "no model server" not in result.stdout.str()
    assert not (project.path / "tooleval-report" / "report.json").exists()


def test_check_items_report_a_near_duplicate(project) -> None:
    project.profile("http://127.0.0.1:9/v1")
    project.write("scenarios/demo.yaml", scenario([
        {"name": "a", "category": "irrelevance",
         "steps": [{"message": "thank you so much for all the help today"}]},
        {"name": "b", "category": "irrelevance",
         "steps": [{"message": "thank you so much for all the help today!"}]},
    ]))
    result = project.run("--tooleval-check")
    assert result.parseoutcomes().get("failed") == 1
    result.stdout.fnmatch_lines(["*near-duplicate*"])
