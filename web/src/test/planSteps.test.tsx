import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import { applyAskEvent, initialAskState } from "../api/ask";
import type { PlanEnvelope, StepRecord } from "../api/types";
import { PlanCard } from "../components/PlanCard";
import { stepRows } from "../components/PlanSteps";
import { I18nProvider } from "../i18n/i18n";

afterEach(cleanup);

const envelope = {
  plan: {
    version: 2,
    mode: "rag",
    strategy: "hybrid",
    knowledge_bases: ["ko"],
    query: null,
    top_k: 10,
    threshold: null,
    hybrid_mode: "sequential",
    rerank: { enabled: false, top_k: 5, threshold: 0 },
    graph: { enabled: false, hops: 2 },
    filters: { time: null, authors: [], domains: [], doc_ids: [], title_contains: null, tags: [] },
    sort: "relevance",
    limit: null,
    rationale: "",
    steps: [
      { id: "s1", query: "누리테크 대표가 졸업한 대학교", strategy: null, top_k: null },
      { id: "s2", query: "{{s1.answer}} 부설 연구소", strategy: "bm25", top_k: null },
      { id: "s3", query: "{{s2.answer}} 연구 분야", strategy: null, top_k: null },
    ],
    answer_from: null,
  },
  source: "heuristic",
  fallback_reason: null,
  errors: [],
  timings_ms: {},
  relaxed: null,
} as unknown as PlanEnvelope;

const record = (id: string, query: string, answer: string | null, hits = 2): StepRecord => ({
  id,
  query,
  planned: query,
  plan: { strategy: id === "s2" ? "bm25" : "hybrid", top_k: 10 },
  hits: Array.from({ length: hits }, (_, i) => ({
    n: i + 1, chunk_id: `c${i}`, doc_id: "d", knowledge_base: "ko", title: null,
  })),
  answer: answer ? { text: answer, sentence: "", passage: 1, source: "extractive" } : null,
  status: answer ? "ok" : hits ? "no_answer" : "empty",
  reason: null,
  adaptive: false,
});

describe("plan steps", () => {
  it("fold step events in order", () => {
    const state = [
      { event: "search_plan", data: JSON.stringify(envelope) },
      { event: "step", data: JSON.stringify(record("s1", "누리테크 대표가 졸업한 대학교", "한결대학교")) },
      { event: "step", data: JSON.stringify(record("s2", "한결대학교 부설 연구소", "AI 연구소")) },
    ].reduce(applyAskEvent, initialAskState);
    expect(state.steps.map((s) => s.id)).toEqual(["s1", "s2"]);
  });

  it("fill a planned query with the answers read so far and mark what has not run", () => {
    const rows = stepRows(envelope, [record("s1", "누리테크 대표가 졸업한 대학교", "한결대학교")]);
    expect(rows.map((r) => r.query)).toEqual([
      "누리테크 대표가 졸업한 대학교",
      "한결대학교 부설 연구소",
      "{{s2.answer}} 연구 분야",
    ]);
    expect(rows.map((r) => r.strategy)).toEqual(["hybrid", "bm25", "hybrid"]);
    expect(rows.map((r) => r.hits)).toEqual([2, null, null]);
  });

  it("list each step on the plan card with its query, strategy, hits and answer", () => {
    render(
      <I18nProvider>
        <PlanCard
          envelope={envelope}
          steps={[
            record("s1", "누리테크 대표가 졸업한 대학교", "한결대학교", 3),
            record("s2", "한결대학교 부설 연구소", null, 0),
          ]}
        />
      </I18nProvider>,
    );
    const steps = screen.getAllByTestId("plan-step");
    expect(steps).toHaveLength(3);
    expect(steps[0].textContent).toContain("누리테크 대표가 졸업한 대학교");
    expect(steps[0].textContent).toContain("검색 결과 3건");
    expect(steps[0].textContent).toContain("한결대학교");
    expect(steps[1].textContent).toContain("bm25");
    expect(steps[1].getAttribute("data-status")).toBe("empty");
    expect(steps[1].textContent).toContain("맞는 문단이 없어");
    expect(steps[2].getAttribute("data-status")).toBe("planned");
  });

  it("show each step's expected answer type and where its answer came from", () => {
    const graphed = {
      ...record("s1", "누리테크 대표가 졸업한 대학교", "한결대학교"),
      expected_type: "ORGANIZATION",
      answer: { text: "한결대학교", sentence: "", passage: 1, source: "graph" },
    };
    const read = { ...record("s2", "한결대학교 부설 연구소", "해양로봇연구소"), expected_type: null };
    render(
      <I18nProvider>
        <PlanCard envelope={envelope} steps={[graphed, read]} />
      </I18nProvider>,
    );
    const steps = screen.getAllByTestId("plan-step");
    const type = steps[0].querySelector("[data-testid=step-expected-type]");
    expect(type?.getAttribute("data-type")).toBe("ORGANIZATION");
    expect(type?.textContent).toBe("조직");
    expect(steps[0].querySelector("[data-testid=step-source]")?.getAttribute("data-source")).toBe("graph");
    expect(steps[0].textContent).toContain("그래프");
    expect(steps[1].querySelector("[data-testid=step-expected-type]")).toBeNull();
    expect(steps[1].querySelector("[data-testid=step-source]")?.textContent).toContain("문단 읽기");
  });

  it("show no step list for a one-step plan", () => {
    const one = { ...envelope, plan: { ...envelope.plan, version: 1, steps: [] } } as PlanEnvelope;
    expect(stepRows(one)).toEqual([]);
  });
});
