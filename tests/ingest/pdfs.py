"""Real PDFs for tests, written with reportlab in a CID font that pypdf extracts Korean from.

Shared with other test packages: `from tests.ingest.pdfs import make_pdf`.
"""

from __future__ import annotations

import io

from reportlab.lib.pagesizes import A4
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas

FONT = "HYSMyeongJo-Medium"  # Adobe-Korea1 CID font: no font file needed, Korean and Latin
FONT_SIZE = 11
_MARGIN = 50
_LEADING = 16


def _register_font() -> None:
    if FONT not in pdfmetrics.getRegisteredFontNames():
        pdfmetrics.registerFont(UnicodeCIDFont(FONT))


def make_pdf(pages: list[str]) -> bytes:
    """A PDF with one page per entry of `pages`; an empty string gives a page without text.

    Lines of an entry are drawn one per line; a line wider than the page is wrapped at spaces
    (so the extracted text may have a line break where the input had a space). Text that does not
    fit on one A4 page keeps being drawn below it: it is still in the page and extracted.
    """
    _register_font()
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer, pagesize=A4)
    width, height = A4
    for page_text in pages:
        y = height - _MARGIN
        for line in _wrap(page_text, width - 2 * _MARGIN):
            if line:
                pdf.setFont(FONT, FONT_SIZE)
                pdf.drawString(_MARGIN, y, line)
            y -= _LEADING
        pdf.showPage()
    pdf.save()
    return buffer.getvalue()


def _wrap(text: str, max_width: float) -> list[str]:
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if line and pdfmetrics.stringWidth(candidate, FONT, FONT_SIZE) > max_width:
                lines.append(line)
                line = word
            else:
                line = candidate
        lines.append(line)
    return lines if text else []
