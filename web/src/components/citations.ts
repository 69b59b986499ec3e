// Splits an answer into text and citation markers: "[1]", "[1, 2]" and "[1][2]" all cite.

export type AnswerPart = { kind: "text"; text: string } | { kind: "cite"; n: number; raw: string };

const CITATION = /\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]/g;

export function splitCitations(answer: string): AnswerPart[] {
  const parts: AnswerPart[] = [];
  let last = 0;
  for (const match of answer.matchAll(CITATION)) {
    const start = match.index ?? 0;
    if (start > last) parts.push({ kind: "text", text: answer.slice(last, start) });
    for (const number of match[1].split(",")) {
      const n = Number(number.trim());
      parts.push({ kind: "cite", n, raw: `[${n}]` });
    }
    last = start + match[0].length;
  }
  if (last < answer.length) parts.push({ kind: "text", text: answer.slice(last) });
  return parts;
}
