import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";

import { AnswerText } from "../components/AnswerText";
import { splitCitations } from "../components/citations";

afterEach(cleanup);

describe("splitCitations", () => {
  it("finds single, grouped and adjacent markers", () => {
    expect(splitCitations("A [1]. B [2, 3][4]")).toEqual([
      { kind: "text", text: "A " },
      { kind: "cite", n: 1, raw: "[1]" },
      { kind: "text", text: ". B " },
      { kind: "cite", n: 2, raw: "[2]" },
      { kind: "cite", n: 3, raw: "[3]" },
      { kind: "cite", n: 4, raw: "[4]" },
    ]);
  });

  it("leaves text without markers and bracketed words alone", () => {
    expect(splitCitations("no [citation] here")).toEqual([{ kind: "text", text: "no [citation] here" }]);
    expect(splitCitations("")).toEqual([]);
  });
});

describe("AnswerText", () => {
  it("links markers that have a passage and calls back with the number", () => {
    const onCite = vi.fn();
    render(<AnswerText answer="연차는 15일 [1], 소멸 [2], 없는 근거 [9]." passages={[{ n: 1 }, { n: 2 }]} onCite={onCite} />);
    const links = screen.getAllByRole("link");
    expect(links.map((a) => a.getAttribute("href"))).toEqual(["#passage-1", "#passage-2"]);
    fireEvent.click(links[1]);
    expect(onCite).toHaveBeenCalledWith(2);
    // [9] has no passage: plain text, not a link.
    expect(screen.getByTestId("answer").textContent).toBe("연차는 15일 [1], 소멸 [2], 없는 근거 [9].");
  });
});
