from __future__ import annotations

import json


def test_search_documents_finds_pages_and_names(tools) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(tools.ok("search_documents", query="monthly RENT"))
    top = data["results"][0]
    assert top["path"] == "Documents/lease.pdf" and top["page"] == 2
    assert "23,450" in top["snippet"]
    turkish = json.loads(tools.ok("search_documents", query="KİRA bedeli"))
    assert turkish["results"][0]["path"] == "Documents/kira_sozlesmesi.docx"
    by_name = json.loads(tools.ok("search_documents", query="elektrik faturası"))
    assert by_name["results"][0]["path"].endswith("elektrik-faturası-mart.md")
    assert json.loads(tools.ok("search_documents", query="zebra xylophone"))["results"] == []
    assert tools.err("search_documents", query="  ?? ")


def test_read_document_formats(tools) -> None:  # type: ignore[no-untyped-def]
    assert "Deposit 46,900" in tools.ok("read_document", path="Documents/lease.pdf", page=2)
    whole = tools.ok("read_document", path="lease.pdf")
    assert "page 1" in whole and "page 2" in whole
    assert "depozito 46.900" in tools.ok("read_document", path="Documents/kira_sozlesmesi.docx")
    html = tools.ok("read_document", path="Documents/report.html")
    assert "Revenue grew 17.3" in html and "secret" not in html and "color" not in html
    assert "Şubat | 1.873,40" in tools.ok("read_document", path="Documents/taksit.csv")
    assert "TR33" in tools.ok("read_document", path="Documents/data.json")
    assert "has 2 page(s)" in tools.err("read_document", path="Documents/lease.pdf", page=9)
    assert "unsupported" in tools.err("read_document", path="Downloads/photos.zip")
    assert "not found" in tools.err("read_document", path="Documents/nope.pdf")


def test_read_document_rejects_broken_files(tools, world) -> None:  # type: ignore[no-untyped-def]
    (world.documents / "broken.pdf").write_bytes(b"%PDF-1.4 garbage")
    (world.documents / "broken.docx").write_bytes(b"PK not a zip")
    assert "PDF" in tools.err("read_document", path="Documents/broken.pdf")
    assert "DOCX" in tools.err("read_document", path="Documents/broken.docx")
    # a broken file does not break the search over the others
    assert json.loads(tools.ok("search_documents", query="rent"))["results"]


def test_web_search_and_fetch(tools) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(tools.ok("web_search", query="dolar kuru bugün"))
    assert data["results"][0]["url"] == "https://kur.example.com.tr/doviz"
    assert "36,8214" in data["results"][0]["snippet"]
    assert json.loads(tools.ok("web_search", query="DÖVİZ"))["results"]
    english = json.loads(tools.ok("web_search", query="weather in Istanbul", language="en"))
    assert english["results"][0]["title"] == "Istanbul weather"
    assert len(english["results"]) <= 5
    page = tools.ok("web_fetch", url="http://www.kur.example.com.tr/doviz/")
    assert "39,9127" in page
    assert "404 not found" in tools.err("web_fetch", url="https://example.com/unknown")
    assert "only http" in tools.err("web_fetch", url="file:///etc/passwd")


def test_memories(tools, world) -> None:  # type: ignore[no-untyped-def]
    found = json.loads(tools.ok("memory_search", query="door code"))
    assert found["results"][0]["text"] == "Apartment door code is 4719#"
    assert "43" in json.loads(tools.ok("memory_search", query="ayakkabı"))["results"][0]["text"]
    assert "saved" in tools.ok("memory_save", text="Parking spot B-214", key="parking")
    assert "updated" in tools.ok("memory_save", text="Parking spot C-117", key="parking")
    saved = [m for m in world.load_state("memories") if m["key"] == "parking"]
    assert saved == [{"key": "parking", "text": "Parking spot C-117",
                      "saved_at": "2026-03-12T10:47:00+03:00"}]
    assert tools.err("memory_save", text="   ")


def test_calendar(tools, world) -> None:  # type: ignore[no-untyped-def]
    today = json.loads(tools.ok("calendar_list", start="today"))
    assert [e["id"] for e in today["events"]] == ["evt-1"]
    week = json.loads(tools.ok("calendar_list", start="2026-03-12", end="2026-03-16"))
    assert [e["title"] for e in week["events"]] == ["Dentist", "Veli toplantısı"]
    added = json.loads(tools.ok("calendar_add", title="Noter", start="2026-03-18T11:00",
                                location="Beşiktaş"))["added"]
    assert added["id"] == "evt-3" and added["end"] == "2026-03-18T12:00+03:00"
    assert "evt-3" in [e["id"] for e in world.load_state("calendar")]
    assert "deleted" in tools.ok("calendar_delete", event_id="evt-3")
    assert "no event" in tools.err("calendar_delete", event_id="evt-3")
    assert tools.err("calendar_add", title="x", start="2026-03-18T11:00", end="2026-03-18T10:00")
    assert tools.err("calendar_list", start="2020-01-01", end="2026-01-01")


def test_reminders_contacts_messages(tools, world) -> None:  # type: ignore[no-untyped-def]
    reminder = json.loads(tools.ok("reminder_add", text="Pay rent", at="2026-04-05T09:00"))
    assert reminder["added"]["at"] == "2026-04-05T09:00+03:00"
    assert world.load_state("reminders")[0]["text"] == "Pay rent"
    contact = json.loads(tools.ok("contacts_lookup", name="mehmet ozturk"))["results"][0]
    assert contact["phone"] == "+90 532 418 27 61"
    assert json.loads(tools.ok("contacts_lookup", name="Zeynep"))["results"] == []
    text = "Yarın 10'da gelir misin?"
    assert "sent" in tools.ok("send_message", to="Mehmet Öztürk", text=text)
    assert world.load_state("outbox") == [
        {"to": "Mehmet Öztürk", "text": text, "sent_at": "2026-03-12T10:47:00+03:00"}]


def test_search_documents_splits_on_underscores_hyphens_dots(  # type: ignore[no-untyped-def]
        tools, world) -> None:
    (world.documents / "quarterly_sales-summary.v2.txt").write_text("Nothing else here.\n")
    (world.documents / "notes.txt").write_text("see the field_trip_budget sheet\n")
    for query in ("quarterly sales", "SALES summary", "summary v2", "Sales"):
        hits = json.loads(tools.ok("search_documents", query=query))["results"]
        assert hits and hits[0]["path"] == "Documents/quarterly_sales-summary.v2.txt", query
    hits = json.loads(tools.ok("search_documents", query="trip budget"))["results"]
    assert [h["path"] for h in hits] == ["Documents/notes.txt"]
    assert "field_trip_budget" in hits[0]["snippet"]
