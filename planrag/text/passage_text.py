"""Passages as plain text: Markdown read with markdown-it-py, so no `#`, `**`, links, table
pipes or front matter reach an answer, and headings are told apart (a heading alone says nothing:
it is never an answer sentence)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from markdown_it import MarkdownIt

from planrag.text.korean import split_sentences

# YAML (---) or TOML (+++) front matter opening a document.
_FRONT_MATTER = re.compile(
    r"\A\s*(?:---|\+\+\+)[ \t]*\n[\w-]+[ \t]*[:=].*?\n(?:---|\+\+\+|\.\.\.)[ \t]*(?:\n|\Z)", re.S
)


@dataclass(frozen=True)
class Block:
    text: str
    heading: bool


@lru_cache(maxsize=1)
def _markdown() -> MarkdownIt:
    return MarkdownIt("commonmark").enable("table").enable("strikethrough")


def plain_blocks(text: str) -> list[Block]:
    """The text's blocks as plain text: headings marked, Markdown syntax and front matter gone,
    and a table's body row one block naming each cell by its column ("지역: 일본, 1박 한도: 2만
    엔"), so a row reads as the sentence it stands for."""
    blocks: list[Block] = []
    heading = in_head = False
    row: list[str] | None = None
    header: list[str] = []
    for token in _markdown().parse(_FRONT_MATTER.sub("", text, count=1)):
        if token.type in ("heading_open", "heading_close"):
            heading = token.type == "heading_open"
        elif token.type in ("thead_open", "thead_close"):
            in_head = token.type == "thead_open"
        elif token.type == "tr_open":
            row = []
        elif token.type == "tr_close" and row is not None:
            if in_head:
                header = row
            elif any(row):
                blocks.append(Block(_row_text(header, row), False))
            row = None
        elif token.type == "inline":
            plain = " ".join(_inline_text(token.children or []).split())
            if row is not None:
                row.append(plain)
            elif plain:
                blocks.append(Block(plain, heading))
        elif token.type in ("code_block", "fence") and token.content.strip():
            blocks.append(Block(" ".join(token.content.split()), False))
    return blocks


def _row_text(header: list[str], row: list[str]) -> str:
    """A table row as text: each non-empty cell after its column's name, when it has one."""
    named = [
        f"{header[i]}: {cell}" if i < len(header) and header[i] else cell
        for i, cell in enumerate(row)
        if cell
    ]
    return ", ".join(named)


def _inline_text(children: Sequence) -> str:  # type: ignore[type-arg]
    parts = []
    for child in children:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(child.content)  # its alt text
    return "".join(parts)


def plain_text(text: str) -> str:
    """The text without Markdown syntax, headings included, one block per line."""
    return "\n".join(block.text for block in plain_blocks(text))


def body_sentences(text: str) -> list[str]:
    """The sentences of the text's non-heading blocks, in order (Kiwi's splitter)."""
    return [sentence for sentence, _ in headed_sentences(text)]


def headed_sentences(text: str) -> list[tuple[str, str]]:
    """`body_sentences`, each with the heading it falls under ("" before the first): a FAQ's
    "What is the brightness of the X200?" says what its answer "The Lumen X200 delivers 2,400
    ANSI lumens." is about."""
    sentences: list[tuple[str, str]] = []
    heading = ""
    for block in plain_blocks(text):
        if block.heading:
            heading = block.text
            continue
        sentences.extend((block.text[a:b], heading) for a, b in split_sentences(block.text))
    return sentences
