"""Renders a Markdown file with markdown-it-py (CommonMark with raw HTML on and GitHub's tables)
and prints what came out as JSON.

Used by core/engine/tests/render.rs: argv[1] is the file. Prints every HTML tag with its count, the table
rows as lists of cell texts, the list items' texts and the code blocks' texts.
"""
import json
import sys
from html.parser import HTMLParser

from markdown_it import MarkdownIt


class Collect(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = {}
        self.rows = []
        self.items = []
        self.code = []
        self.stack = []
        self.text = []

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag == "tr":
            self.rows.append([])
        if tag in ("td", "th", "li", "pre"):
            self.stack.append(tag)
            self.text.append("")

    def handle_endtag(self, tag):
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()
            text = self.text.pop()
            if tag in ("td", "th"):
                self.rows[-1].append(text.strip())
            elif tag == "li":
                self.items.append(text.strip())
            else:
                self.code.append(text)

    def handle_data(self, data):
        if self.text:
            self.text[-1] += data


markdown = open(sys.argv[1], encoding="utf-8").read()
html = MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)
collect = Collect()
collect.feed(html)
print(
    json.dumps(
        {
            "tags": collect.tags,
            "rows": collect.rows,
            "items": collect.items,
            "code": collect.code,
        }
    )
)
