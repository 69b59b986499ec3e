import { describe, expect, it } from "vitest";

import { applyAskEvent, initialAskState, type AskEvent, type AskState } from "../api/ask";

const envelope = {
  plan: { strategy: "hybrid", knowledge_bases: ["news"] },
  source: "fallback",
  fallback_reason: "LLM request failed",
};

function fold(events: AskEvent[], state: AskState = initialAskState): AskState {
  return events.reduce(applyAskEvent, state);
}

const ev = (event: string, data: unknown): AskEvent => ({ event, data: JSON.stringify(data) });

describe("applyAskEvent", () => {
  it("folds a whole stream in order", () => {
    const state = fold([
      ev("search_plan", envelope),
      ev("search_result", { hits: [{ n: 1, chunk_id: "c1" }], stages: { merged: 1 }, relaxed: true }),
      ev("exist_in_post_status", { exists: true, count: 1, threshold: 0.2 }),
      ev("context", { passages: [{ n: 1, chunk_id: "c1", content: "본문" }] }),
      ev("answer", { delta: "메타버스는 " }),
      ev("answer", { delta: "가상 공간입니다 [1]." }),
      ev("end", {
        trace_id: "t-1",
        conversation_id: "c-9",
        answer_source: "llm",
        citations: [{ n: 1 }],
        timings_ms: {},
      }),
    ]);
    expect(state.status).toBe("done");
    expect(state.envelope?.source).toBe("fallback");
    expect(state.envelope?.fallback_reason).toBe("LLM request failed");
    expect(state.hits).toHaveLength(1);
    expect(state.relaxed).toBe(true);
    expect(state.evidence?.exists).toBe(true);
    expect(state.passages[0].content).toBe("본문");
    expect(state.answer).toBe("메타버스는 가상 공간입니다 [1].");
    expect(state.end?.trace_id).toBe("t-1");
    expect(state.end?.conversation_id).toBe("c-9");
  });

  it("is streaming after the plan and before the end", () => {
    const state = fold([ev("search_plan", envelope), ev("answer", { delta: "부분" })]);
    expect(state.status).toBe("streaming");
    expect(state.answer).toBe("부분");
    expect(state.end).toBeNull();
  });

  it("turns an error event into an error state with its code and trace", () => {
    const state = fold([
      ev("search_plan", envelope),
      ev("error", {
        code: "store_unavailable",
        message: "Milvus is down",
        params: { store: "milvus" },
        trace_id: "t-2",
      }),
    ]);
    expect(state.status).toBe("error");
    expect(state.error).toEqual({
      code: "store_unavailable",
      message: "Milvus is down",
      params: { store: "milvus" },
      trace_id: "t-2",
    });
  });

  it("ignores heartbeats, unknown events and malformed data", () => {
    const start = fold([ev("search_plan", envelope)]);
    expect(applyAskEvent(start, { event: "", data: "" })).toBe(start);
    expect(applyAskEvent(start, ev("something_new", { x: 1 }))).toBe(start);
    expect(applyAskEvent(start, { event: "answer", data: "{not json" })).toBe(start);
  });

  it("keeps deltas without text from breaking the answer", () => {
    const state = fold([ev("answer", { delta: "a" }), ev("answer", {}), ev("answer", { delta: "b" })]);
    expect(state.answer).toBe("ab");
  });
});
