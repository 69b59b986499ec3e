import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

import type { PlanEnvelope } from "../api/types";
import { PlanCard } from "../components/PlanCard";
import { I18nProvider } from "../i18n/i18n";

afterEach(cleanup);

function envelope(changes: Partial<PlanEnvelope> = {}, plan: Record<string, unknown> = {}): PlanEnvelope {
  return {
    plan: {
      version: 1,
      mode: "rag",
      strategy: "hybrid",
      knowledge_bases: ["news", "hr"],
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
      ...plan,
    } as PlanEnvelope["plan"],
    source: "llm",
    fallback_reason: null,
    errors: [],
    timings_ms: {},
    relaxed: null,
    ...changes,
  };
}

const show = (env: PlanEnvelope) =>
  render(
    <I18nProvider>
      <PlanCard envelope={env} />
    </I18nProvider>,
  );

describe("PlanCard", () => {
  it("shows strategy, time range with its expression, sort, limit and knowledge bases", () => {
    show(
      envelope({}, {
        filters: {
          time: { from: "2025-11-10", to: "2025-11-16", expression: "지난주" },
          authors: [], domains: [], doc_ids: [], title_contains: null, tags: [],
        },
        sort: "newest",
        limit: 2,
        graph: { enabled: true, hops: 2 },
      }),
    );
    expect(screen.getByTestId("plan-strategy").textContent).toBe("hybrid (sequential) + graph 2 hops");
    expect(screen.getByTestId("plan-time").textContent).toBe("2025-11-10 ~ 2025-11-16지난주");
    expect(screen.getByTestId("plan-sort").textContent).toBe("newest");
    expect(screen.getByTestId("plan-limit").textContent).toBe("2");
    expect(screen.getByTestId("plan-kbs").textContent).toBe("news, hr");
    expect(screen.getByTestId("plan-source").textContent).toBe("llm");
    expect(screen.queryByTestId("plan-fallback-reason")).toBeNull();
    expect(screen.queryByTestId("plan-relaxed")).toBeNull();
  });

  it("says when the plan fell back and why, and what was relaxed", () => {
    show(
      envelope({
        source: "fallback",
        fallback_reason: "LLM timed out after 8s",
        relaxed: {
          dropped: { time: { from: "2025-09-01", to: "2025-09-30", expression: "9월" } },
          reason: "no document matches these filters; searched without them",
        },
      }),
    );
    expect(screen.getByTestId("plan-source").textContent).toBe("fallback");
    expect(screen.getByTestId("plan-fallback-reason").textContent).toContain("LLM timed out after 8s");
    const relaxed = screen.getByTestId("plan-relaxed").textContent ?? "";
    expect(relaxed).toContain("searched without them");
    expect(relaxed).toContain("2025-09-01 ~ 2025-09-30");
    expect(relaxed).toContain("9월");
    expect(screen.getByTestId("plan-time").textContent).toBe("전체 기간");
    expect(screen.getByTestId("plan-limit").textContent).toBe("제한 없음");
  });

  it("says what the relaxation dropped in the user's language, from its steps", () => {
    show(
      envelope({
        relaxed: {
          dropped: { time: { from: "2025-09-01", to: "2025-09-30", expression: "9월" } },
          steps: [{ filter: "time", value: "'9월' (2025-09-01..2025-09-30)", documents: 4 }],
          reason: "no document matches these filters; dropped time … → 4 documents",
        },
      }),
    );
    const relaxed = screen.getByTestId("plan-relaxed").textContent ?? "";
    expect(relaxed).toContain("조건에 맞는 문서가 없어 필터를 뺐습니다: 기간 '9월' (2025-09-01..2025-09-30) 제외 → 문서 4개");
    expect(relaxed).not.toContain("no document matches");
  });

  it("shows the standalone question a follow-up became, and what it carried", () => {
    show(
      envelope({
        followup: {
          question: "그럼 지난달은?",
          standalone: "지난달 원격 근무 규정",
          knowledge_bases: ["hr"],
          doc_id: null,
          carried: ["topic", "time"],
          source: "rules",
          reason: null,
        },
      }),
    );
    const row = screen.getByTestId("plan-followup").textContent ?? "";
    expect(row).toContain("지난달 원격 근무 규정");
    expect(row).toContain("rules · topic, time");
  });

  it("hides the follow-up row for a first question", () => {
    show(envelope({ followup: null }));
    expect(screen.queryByTestId("plan-followup")).toBeNull();
  });

  it("names the mode instead of a strategy for direct answers", () => {
    show(envelope({ source: "heuristic" }, { mode: "direct" }));
    expect(screen.getByTestId("plan-strategy").textContent).toBe("direct");
  });
});
