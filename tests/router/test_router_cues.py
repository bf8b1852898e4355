"""Cues from a tool's name and description (router/cues.py): any tool, a user's own
included, is routable by the words of its name and description, and by the cue synonyms
users type ("send back" for *return*)."""

from __future__ import annotations

from pytest_tooleval.tools.base import ToolSpec
from tests.router.routing import CATALOGUE, ROUTER, shown


def test_user_tools_are_routable_by_name_and_description() -> None:
    user = [
        ToolSpec(
            "gh_search_issues", "Search the GitHub issues of a repository by label.", {}, "mcp"
        ),
        ToolSpec("hava_durumu_getir", "Bir şehrin hava durumunu getirir.", {}, "python"),
        ToolSpec("lookupInvoiceStatus", "Tell whether an invoice was paid.", {}, "python"),
    ]
    catalogue = CATALOGUE + user
    assert "gh_search_issues" in shown("which issues are labelled regression?", "en", catalogue)
    assert "hava_durumu_getir" in shown("Ankara'da hava durumu", "tr", catalogue)
    assert "lookupInvoiceStatus" in shown("was invoice 4411 paid?", "en", catalogue)
    reasons = ROUTER.route("which issues are open", "en", catalogue).reasons
    assert any("cue name:issues" in reason for reason in reasons["gh_search_issues"])


def test_cue_synonyms_reach_a_user_tool() -> None:
    returns = ToolSpec(
        "get_return_policy", "The shop's returns policy text.", {"type": "object"}, "inline"
    )
    catalogue = [*CATALOGUE, returns]
    scores, reasons = ROUTER.score("Can I send these boots back for a refund?", "en", catalogue)
    assert scores.get("get_return_policy", 0) > 0, reasons
    scores, reasons = ROUTER.score("The jacket is too small, can I send it back?", "en", catalogue)
    assert any("name:return" in r for r in reasons.get("get_return_policy", [])), reasons


def test_name_keeps_words_that_are_description_noise() -> None:
    """'return' is noise in "Returns the …" but the point of get_return_policy's name."""
    returns = ToolSpec("get_return_policy", "Policy text.", {"type": "object"}, "inline")
    _, reasons = ROUTER.score("what is the return window", "en", [*CATALOGUE, returns])
    assert any("name:return" in r for r in reasons.get("get_return_policy", []))


def test_a_false_friend_of_a_trigger_is_still_a_users_own_word() -> None:
    """The trigger exceptions (art*/article, topla*/toplantı) keep a shorter cue off the
    longer word ("note" never fires on "noter"), not the tool whose own name or description
    is that word: a help desk's search_articles is asked for "the article", a Turkish
    tool toplanti_planla for "TOPLANTI"."""
    desk = [ToolSpec(name, description, {}, "mcp:helpdesk") for name, description in [
        ("search_articles", "Search help-centre articles by keyword."),
        ("create_ticket", "Open a new support ticket."),
        ("update_ticket", "Change a ticket's status or assignee."),
        ("list_tickets", "List support tickets by status."),
        ("get_ticket", "Show one ticket with its comments."),
        ("add_comment", "Add a comment to a ticket."),
        ("list_users", "List agents and end users."),
        ("get_user", "Show one user's profile."),
        ("list_macros", "List saved reply macros."),
        ("list_views", "List saved ticket views."),
        ("get_satisfaction", "Customer satisfaction ratings of solved tickets."),
    ]]
    assert "search_articles" in shown("find the article about refunds", "en", CATALOGUE + desk)
    office = [ToolSpec(name, description, {}, "python") for name, description in [
        ("toplanti_planla", "Ekip toplantısı planlar."),
        ("izin_talebi", "Yıllık izin talebi açar."),
        ("masraf_girisi", "Masraf kaydı girer."),
        ("bordro_goster", "Maaş bordrosunu gösterir."),
    ]]
    assert "toplanti_planla" in shown("CUMA SAAT 10DA TOPLANTI KOY", "tr", CATALOGUE + office)
    # The false friend still keeps another tool's shorter cue out.
    notes = ToolSpec("add_note", "Save a short note.", {}, "python")
    scores, _ = ROUTER.score("noter randevum ne zaman", "tr", [*CATALOGUE, notes])
    assert scores.get("add_note", 0.0) == 0.0


def test_function_words_of_a_description_are_no_cues() -> None:
    """A description's pronouns, wh-words, modals, quantifiers and prepositions say
    nothing about the tool: run_python's "Print what you need to see" made "what", "you"
    and "need" cues, so chit-chat ("do you think…", "what's your…") put run_python among
    the nine. A user's tool described in such words is no different."""
    chatty = ToolSpec("ask_helper", "Tell me what you need and how, every time, about anything "
                      "they have before or after.", {}, "python")
    catalogue = [*CATALOGUE, chatty]
    for message in ["what do you think about it", "how was it, do you need me there",
                    "they never have every answer before or after the talk"]:
        _, reasons = ROUTER.score(message, "en", catalogue)
        cues = [r for why in reasons.values() for r in why if r.startswith("cue description:")]
        assert not cues, (message, cues)
