"""Inline SVG bar charts for the HTML reports: no script, no library, no network.

Values are on a 0..100 scale, an interval a whisker. A chart shrinks with its container
down to 10/12 of its size (its text 10 px), then scrolls sideways in its box; its label
and note columns are as wide as their longest text, so no label is cut.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from pytest_tooleval.scoring.proportion import interval_text

ROW = 22
BAR_WIDTH = 360
#: Pixels per character at the charts' 12 px font, above a sans-serif's average, so that
#: a column sized by it holds its text (the browser test measures it).
CHAR = 7.2
PAD = 12


@dataclass(frozen=True)
class Bar:
    label: str
    value: float | None  # 0..100
    interval: tuple[float, float] | None = None  # 0..100
    note: str = ""
    css: str = "bar"
    #: A threshold that belongs to this row only (the safety gate on irrelevance): a dashed
    #: line across the row, named in its note.
    marker: float | None = None
    marker_label: str = ""


def _width(text: str) -> float:
    return CHAR * len(text) + PAD


def _note(bar: Bar) -> str:
    shown = "" if bar.value is None else f"{bar.value:.1f}"
    if bar.interval is not None:
        shown += f" [{interval_text(*bar.interval)}]"
    parts = [shown, bar.note, bar.marker_label]
    return " · ".join(part for part in parts if part)


def bar_chart(title: str, bars: list[Bar]) -> str:
    """A horizontal bar chart, one row per bar: label, bar with whisker, figures."""
    label_width = max(_width(bar.label) for bar in bars)
    notes = [_note(bar) for bar in bars]
    note_width = max(_width("100"), *(_width(note) for note in notes))
    height = ROW * len(bars) + 28
    width = label_width + BAR_WIDTH + note_width

    def x(value: float) -> float:
        return label_width + BAR_WIDTH * max(0.0, min(100.0, value)) / 100.0

    parts = [f'<div class="plot"><svg class="chart" role="img" aria-label="{escape(title)}" '
             f'viewBox="0 0 {width:.0f} {height}" width="100%" style="max-width: {width:.0f}px; '
             f'min-width: {width * 10 / 12:.0f}px" '
             'preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg">',
             f"<title>{escape(title)}</title>"]
    for tick in (0, 25, 50, 75, 100):
        parts.append(f'<line class="grid" x1="{x(tick):.1f}" y1="0" x2="{x(tick):.1f}" '
                     f'y2="{height - 18}"/>')
        parts.append(f'<text class="tick" x="{x(tick):.1f}" y="{height - 4}" '
                     f'text-anchor="middle">{tick}</text>')
    for index, (bar, note) in enumerate(zip(bars, notes, strict=True)):
        y = index * ROW + 4
        parts.append(f'<text class="label" x="{label_width - 6:.1f}" y="{y + 13}" '
                     f'text-anchor="end">{escape(bar.label)}</text>')
        if bar.value is None:
            parts.append(f'<text class="na" x="{label_width + 4:.1f}" y="{y + 13}">n/a</text>')
        else:
            parts.append(f'<rect class="{bar.css}" x="{label_width:.1f}" y="{y}" '
                         f'width="{x(bar.value) - label_width:.1f}" height="{ROW - 6}">'
                         f"<title>{escape(bar.label)}: {bar.value:.1f}</title></rect>")
        if bar.interval is not None:
            low, high = (x(v) for v in bar.interval)
            mid = y + (ROW - 6) / 2
            parts.append(f'<path class="whisker" d="M{low:.1f} {mid:.1f}H{high:.1f}'
                         f'M{low:.1f} {y + 3}V{y + ROW - 9}M{high:.1f} {y + 3}V{y + ROW - 9}"/>')
        if bar.marker is not None:
            parts.append(f'<line class="marker" x1="{x(bar.marker):.1f}" y1="{y - 2}" '
                         f'x2="{x(bar.marker):.1f}" y2="{y + ROW - 4}"><title>'
                         f"{escape(bar.marker_label)}</title></line>")
        parts.append(f'<text class="note" x="{label_width + BAR_WIDTH + 6:.1f}" '
                     f'y="{y + 13}">{escape(note)}</text>')
    parts.append("</svg></div>")
    return "".join(parts)
