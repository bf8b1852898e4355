"""The HTML reader gives what ``html.parser`` gave for every well-formed page: the world's
own pages (the corpus's documents), pages written to probe it, and random ones.

Its time on hostile pages is tested in tests/security/test_time_and_git_output.py.
"""

from __future__ import annotations

import random
import re
from html.parser import HTMLParser
from typing import Any

import pytest

from pytest_tooleval.tools.builtin.documents import html_text
from pytest_tooleval.world.build import documents, render_document


class _Reference(HTMLParser):
    """The reader before (``html.parser``, quadratic on unclosed constructs)."""

    BLOCKS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "table",
              "section", "article", "header", "footer", "ul", "ol", "title"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in ("script", "style"):
            self.skip += 1
        elif tag in self.BLOCKS:
            self.parts.append("\n")
        elif tag in ("td", "th"):
            self.parts.append(" | ")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self.skip:
            self.skip -= 1
        elif tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.parts.append(data)


def reference(source: str) -> str:
    parser = _Reference()
    parser.feed(source)
    parser.close()
    lines = (re.sub(r"[ \t]+", " ", line).strip() for line in "".join(parser.parts).split("\n"))
    return "\n".join(line for line in lines if line)


def test_every_page_of_the_world_reads_as_before() -> None:
    pages = [render_document(doc, lang).decode("utf-8") for lang, doc in documents()
             if doc["path"].endswith(".html")]
    assert len(pages) >= 5
    for page in pages:
        assert html_text(page) == reference(page)


@pytest.mark.parametrize("page", [
    "<p>a &amp; b &lt;c&gt; &#65;&#x42; &nbsp;x &unknown; &amp</p>",
    "<table><tr><td>1</td><th>2</th></tr></table>",
    "<script>var a = '<p>'; if (a < b) {}</script>after<style>p{}</style>x",
    "<SCRIPT type='text/javascript'>x</SCRIPT >y", "<br/>a<br />b<br>c",
    '<a href="x>y" title=\'q"\'>link</a> <img src=a.png alt="a > b">',
    "<!-- comment <p> --> text <!DOCTYPE html> <?xml version='1.0'?> <![CDATA[ x ]]> y",
    "<div\n class='x'\n>multi\nline</div>", "a < b and c > d", "x <3 y", "<p>unclosed",
    "<ul><li>one<li>two</ul>", "</p>stray end", "<a href=/x/>q</a>", "<p/>t<p />u",
    "<h1>Title</h1>\n<p>Para   with \t spaces</p>", "<!--x-->y<!---->z<!-- -- -->w",
    "<a b='1'c=2 d>e</a>", "<div data-x=\"a'b\">t</div>", "<p>&#128512; &#x1F600;</p>",
    "<title>T &amp; U</title>", "text&", "text &", "a<", "<", "<>", "</>", "<!>",
    "<a\tb=c>d</a\t>", "</ p>", "</a b>x", "<![if !IE]>x<![endif]>y", "<p>a</P>b",
    "<style>/* </style */ x</style>y", "<a =b>c</a>", "<a b= c>d</a>", "<img a=\"\"/>x",
])
def test_probing_pages_read_as_before(page: str) -> None:
    assert html_text(page) == reference(page)


def test_random_well_formed_pages_read_as_before() -> None:
    rnd = random.Random(27)
    tags = ["p", "div", "span", "a", "b", "td", "th", "tr", "table", "li", "ul", "h2", "br",
            "title", "section", "em"]
    words = ["alpha", "beta", "&amp;", "&lt;", "1 < 2", "x > y", "&#233;", "  ", "\n", "\t",
             "Ünï", "a&b", "&copy", "quote\"s", "it's"]
    values = ["x", "a b", "q>r", "a'b", "", "1/2", '"dq"']

    def attribute() -> str:
        value = rnd.choice(values)
        bare = not any(c in value for c in " >'\"") and rnd.random() < 0.3
        quote = "" if bare else ('"' if '"' not in value else "'")
        return f' {rnd.choice(["href", "class", "data-x", "alt"])}={quote}{value}{quote}'

    def page(depth: int = 0) -> str:
        out = []
        for _ in range(rnd.randint(1, 5)):
            roll = rnd.random()
            if roll < 0.4 or depth > 3:
                out.append(rnd.choice(words))
            elif roll < 0.5:
                out.append(f"<!-- {rnd.choice(words)} -->")
            elif roll < 0.55:
                out.append("<script>if (a<b) x='</p>';</script>")
            elif roll < 0.6:
                out.append(f"<{rnd.choice(tags)}{attribute()}/>")
            else:
                tag = rnd.choice(tags)
                extra = attribute() if rnd.random() < 0.5 else ""
                out.append(f"<{tag}{extra}>{page(depth + 1)}</{tag}>")
        return "".join(out)

    for _ in range(2000):
        source = page()
        assert html_text(source) == reference(source), source
