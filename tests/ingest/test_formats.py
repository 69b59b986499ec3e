"""Word, HWPX, HTML and CSV uploads to clean text; every file is built here (python-docx, a
zip of OWPML XML, plain strings)."""

from __future__ import annotations

import io
import zipfile

import pytest

from planrag.core.errors import ParseError
from planrag.ingest.parsers import detect_file_type, parse_document


def make_docx() -> bytes:
    import docx

    document = docx.Document()
    document.add_heading("연차 휴가 규정", level=1)
    document.add_paragraph("입사 첫해 연차 휴가는 15일이다.")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "근속", "일수"
    table.cell(1, 0).text, table.cell(1, 1).text = "3년", "16일"
    document.add_paragraph("Unused days are paid out in January.")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


HWPX_SECTION = """<?xml version="1.0" encoding="UTF-8"?>
<hs:sec xmlns:hs="http://www.hancom.co.kr/hwpml/2011/section"
        xmlns:hp="http://www.hancom.co.kr/hwpml/2011/paragraph">
  <hp:p><hp:run><hp:t>{first}</hp:t></hp:run></hp:p>
  <hp:p><hp:run><hp:t>{second_a}</hp:t></hp:run><hp:run><hp:t>{second_b}</hp:t></hp:run></hp:p>
</hs:sec>"""


def make_hwpx(sections: list[tuple[str, str, str]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("mimetype", "application/hwp+zip")
        archive.writestr("Contents/content.hpf", "<opf:package/>")
        for i, (first, a, b) in enumerate(sections):
            xml = HWPX_SECTION.format(first=first, second_a=a, second_b=b)
            archive.writestr(f"Contents/section{i}.xml", xml)
    return buffer.getvalue()


def test_the_new_extensions_are_recognised() -> None:
    for name, kind in [
        ("규정.docx", "docx"),
        ("공문.HWPX", "hwpx"),
        ("page.html", "html"),
        ("page.htm", "html"),
        ("표.csv", "csv"),
    ]:
        assert detect_file_type(name) == kind


def test_docx_paragraphs_headings_and_tables_in_order() -> None:
    text = parse_document(make_docx(), "docx").text
    assert text.index("# 연차 휴가 규정") < text.index("15일이다") < text.index("3년 | 16일")
    assert text.index("3년 | 16일") < text.index("paid out in January")
    with pytest.raises(ParseError):
        parse_document(b"PK\x03\x04 not a docx", "docx")


def _with_document_xml(body: str | None) -> bytes:
    """make_docx()'s package with document.xml's body replaced (None: the part removed)."""
    source = zipfile.ZipFile(io.BytesIO(make_docx()))
    head, tail = source.read("word/document.xml").decode().split("<w:body>", 1)
    tail = tail[tail.index("<w:sectPr") :]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            if info.filename != "word/document.xml":
                target.writestr(info, source.read(info))
            elif body is not None:
                target.writestr(info, f"{head}<w:body>{body}{tail}".encode())
    return out.getvalue()


def test_docx_runs_tabs_breaks_hyperlinks_and_merged_cells() -> None:
    body = (
        '<w:p><w:r><w:t xml:space="preserve">제1조 </w:t></w:r><w:r><w:tab/><w:t>목적</w:t>'
        "</w:r><w:r><w:br/><w:t>둘째 줄</w:t></w:r></w:p>"
        '<w:p><w:hyperlink r:id="x"><w:r><w:t>링크 글</w:t></w:r></w:hyperlink></w:p>'
        "<w:p><w:r><w:delText>지운 글</w:delText></w:r></w:p>"
        "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>병합</w:t></w:r></w:p></w:tc>"
        "<w:tc><w:p><w:r><w:t>병합</w:t></w:r></w:p></w:tc>"
        "<w:tc><w:p/></w:tc></w:tr></w:tbl>"
    )
    text = parse_document(_with_document_xml(body), "docx").text
    assert text.split("\n\n") == ["제1조 목적\n둘째 줄", "링크 글", "병합"]


def test_docx_without_its_document_part_is_a_clear_error() -> None:
    with pytest.raises(ParseError, match="no word/document.xml"):
        parse_document(_with_document_xml(None), "docx")
    with pytest.raises(ParseError, match="not a valid .docx"):
        parse_document(_with_document_xml("<w:p><w:r><w:t>열린 태그"), "docx")


def test_hwpx_sections_and_runs() -> None:
    data = make_hwpx([("제1조 목적", "이 규정은 ", "휴가를 정한다."), ("제2조", "연차는 ", "15일")])
    text = parse_document(data, "hwpx").text
    assert text.split("\n\n") == ["제1조 목적", "이 규정은 휴가를 정한다.", "제2조", "연차는 15일"]
    with pytest.raises(ParseError):
        parse_document(b"not a zip", "hwpx")


def test_html_visible_text_only() -> None:
    page = (
        "<html><head><title>휴가 안내</title><style>p {color: red}</style>"
        "<script>var x = '숨김';</script></head><body><h1>연차</h1><p>입사 첫해 15일&amp;"
        "추가 1일</p><ul><li>신청은 3일 전</li><li>Apply 3 days ahead</li></ul></body></html>"
    )
    text = parse_document(page.encode("cp949", errors="ignore"), "html").text
    assert "숨김" not in text and "color" not in text
    lines = text.splitlines()
    assert lines[0] == "휴가 안내" and "# 연차" in lines
    assert "입사 첫해 15일&추가 1일" in lines and "신청은 3일 전" in lines


def test_csv_rows_with_their_column_names() -> None:
    data = "이름,부서,연차\n김민수,인사팀,15\n이영희,,17\n".encode("cp949")
    text = parse_document(data, "csv").text
    assert text.splitlines() == ["이름: 김민수; 부서: 인사팀; 연차: 15", "이름: 이영희; 연차: 17"]
    semicolons = parse_document(b"a;b\n1;2\n", "csv").text
    assert semicolons == "a: 1; b: 2"


def test_each_format_is_indexed_and_found(runtime) -> None:  # type: ignore[no-untyped-def]
    from planrag.services.ingestion import UploadItem
    from planrag.services.knowledge_bases import KnowledgeBaseCreate
    from planrag.services.retrieval import RetrieveRequest

    kb = runtime.knowledge_bases.create(KnowledgeBaseCreate(name="formats"))
    files = {
        "규정.docx": make_docx(),
        "공문.hwpx": make_hwpx([("출장비 규정", "숙박비는 ", "1박 10만 원")]),
        "안내.html": "<p>주차권은 안내데스크에서 받는다</p>".encode(),
        "명단.csv": "이름,식권\n김민수,20장\n".encode(),
    }
    items = [UploadItem(filename=name, data=data) for name, data in files.items()]
    docs = runtime.ingestion.upload(kb.id, items, background=False)
    assert [runtime.ingestion.index(d.id).status.value for d in docs] == ["completed"] * 4
    expected = [("연차 휴가", "규정.docx"), ("숙박비", "공문.hwpx"), ("주차권", "안내.html")]
    for query, name in [*expected, ("식권", "명단.csv")]:
        hits = runtime.retrieval.retrieve(kb.id, RetrieveRequest(query=query, strategy="bm25"))
        assert hits and hits[0].metadata.filename == name, query
