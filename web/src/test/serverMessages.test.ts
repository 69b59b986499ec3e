import { describe, expect, it } from "vitest";

import { formatDate } from "../components/format";
import { renderServerMessage, serverTexts } from "../i18n/serverMessages";

describe("server messages", () => {
  it("render indexing progress in Korean and English from its code and parameters", () => {
    const progress = { code: "chunks_embedded", params: { done: 16, total: 52 }, text: "chunks embedded 16/52" };
    expect(renderServerMessage("ko", progress).text).toBe("청크 임베딩 16/52");
    expect(renderServerMessage("en", progress).text).toBe("chunks embedded 16/52");
    const graph = { code: "graph_extracting", params: { done: 3, total: 9, extractor: "rule" }, text: "x" };
    expect(renderServerMessage("ko", graph).text).toBe("그래프: 청크 3/9개에서 추출 중 (rule)");
  });

  it("render errors with their parameters", () => {
    const missing = {
      code: "knowledge_base_not_found",
      params: { kb: "사내 규정", kb_id: "사내 규정" },
      text: "knowledge base '사내 규정' not found",
    };
    expect(renderServerMessage("ko", missing)).toEqual({
      text: "지식 베이스 '사내 규정'을(를) 찾을 수 없습니다.",
      detail: null,
      known: true,
    });
    expect(renderServerMessage("en", missing).text).toBe("Knowledge base '사내 규정' not found.");
  });

  it("pick a parse error's precise text by its reason, else a general one with the server's words", () => {
    const notPdf = { code: "parse_error", params: { reason: "not_pdf" }, text: "not a valid PDF: …" };
    expect(renderServerMessage("ko", notPdf)).toEqual({
      text: "올바른 PDF가 아닙니다 (%PDF 헤더가 없습니다).",
      detail: null,
      known: true,
    });
    const hwp = { code: "parse_error", params: {}, text: "HWP 3.x files are not supported" };
    expect(renderServerMessage("ko", hwp)).toEqual({
      text: "파일을 읽을 수 없습니다.",
      detail: "HWP 3.x files are not supported",
      known: true,
    });
  });

  it("fall back to the server's text for an unknown code or missing parameters", () => {
    const unknown = { code: "brand_new_code", params: {}, text: "something new happened" };
    expect(renderServerMessage("ko", unknown)).toEqual({
      text: "something new happened",
      detail: null,
      known: false,
    });
    const noParams = { code: "knowledge_base_not_found", params: {}, text: "knowledge base 'x' not found" };
    expect(renderServerMessage("ko", noParams).text).toBe("knowledge base 'x' not found");
  });

  it("have every code in both languages", () => {
    expect(Object.keys(serverTexts.en).sort()).toEqual(Object.keys(serverTexts.ko).sort());
  });
});

describe("dates", () => {
  it("show in the user's language and in Asia/Seoul by default", () => {
    const iso = "2026-11-27T00:30:00Z"; // 09:30 in Seoul
    // Node's ICU may lack Korean day periods (오전): the browser test checks them.
    expect(formatDate(iso, "ko")).toMatch(/^2026\. 11\. 27\. (오전|AM) 9:30$/);
    expect(formatDate(iso, "en")).toBe("Nov 27, 2026, 9:30 AM");
    expect(formatDate(iso, "en", "UTC")).toBe("Nov 27, 2026, 12:30 AM");
    expect(formatDate(null)).toBe("—");
  });
});
