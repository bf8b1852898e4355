"""Inline SVG bar charts for the HTML report: no script, no library, no network.

Values are on a 0..100 scale; an interval, when the report has one, is drawn as a whisker.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

ROW = 22
LABEL_WIDTH = 190
BAR_WIDTH = 360
NOTE_WIDTH = 150


@dataclass(frozen=True)
class Bar:
    label: str
    value: float | None  # 0..100
    interval: tuple[float, float] | None = None  # 0..100
    note: str = ""
    css: str = "bar"


def _x(value: float) -> float:
    return LABEL_WIDTH + BAR_WIDTH * max(0.0, min(100.0, value)) / 100.0


def bar_chart(title: str, bars: list[Bar], *, marker: float | None = None,
              marker_label: str = "") -> str:
    """A horizontal bar chart; ``marker`` draws a vertical line (a threshold)."""
    height = ROW * len(bars) + 28
    width = LABEL_WIDTH + BAR_WIDTH + NOTE_WIDTH
    parts = [f'<svg class="chart" role="img" aria-label="{escape(title)}" '
             f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
             'xmlns="http://www.w3.org/2000/svg">', f"<title>{escape(title)}</title>"]
    for tick in (0, 25, 50, 75, 100):
        x = _x(tick)
        parts.append(f'<line class="grid" x1="{x:.1f}" y1="0" x2="{x:.1f}" '
                     f'y2="{height - 18}"/>')
        parts.append(f'<text class="tick" x="{x:.1f}" y="{height - 4}" '
                     f'text-anchor="middle">{tick}</text>')
    for index, bar in enumerate(bars):
        y = index * ROW + 4
        parts.append(f'<text class="label" x="{LABEL_WIDTH - 6}" y="{y + 13}" '
                     f'text-anchor="end">{escape(bar.label)}</text>')
        if bar.value is None:
            parts.append(f'<text class="na" x="{LABEL_WIDTH + 4}" y="{y + 13}">n/a</text>')
        else:
            w = _x(bar.value) - LABEL_WIDTH
            parts.append(f'<rect class="{bar.css}" x="{LABEL_WIDTH}" y="{y}" width="{w:.1f}" '
                         f'height="{ROW - 6}"><title>{escape(bar.label)}: {bar.value:.1f}'
                         "</title></rect>")
        if bar.interval is not None:
            low, high = (_x(v) for v in bar.interval)
            mid = y + (ROW - 6) / 2
            parts.append(f'<path class="whisker" d="M{low:.1f} {mid:.1f}H{high:.1f}'
                         f'M{low:.1f} {y + 3}V{y + ROW - 9}M{high:.1f} {y + 3}V{y + ROW - 9}"/>')
        shown = "" if bar.value is None else f"{bar.value:.1f}"
        if bar.interval is not None:
            shown += f" [{bar.interval[0]:.1f}, {bar.interval[1]:.1f}]"
        note = f"{shown}  {bar.note}".strip()
        parts.append(f'<text class="note" x="{LABEL_WIDTH + BAR_WIDTH + 6}" y="{y + 13}">'
                     f"{escape(note)}</text>")
    if marker is not None:
        x = _x(marker)
        parts.append(f'<line class="marker" x1="{x:.1f}" y1="0" x2="{x:.1f}" '
                     f'y2="{height - 18}"><title>{escape(marker_label)}</title></line>')
    parts.append("</svg>")
    return "".join(parts)
