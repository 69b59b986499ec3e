import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, within } from "@testing-library/react";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";

import type { Trace } from "../api/types";
import { I18nProvider } from "../i18n/i18n";
import { TraceDetail } from "../pages/TraceDetail";

const trace: Trace = {
  id: "t1",
  created_at: "2026-11-27T10:00:00Z",
  question: "Who is the CEO of Hanbit Robotics?",
  knowledge_bases: ["ko-company", "en-docs"],
  source: "extractive",
  status: "ok",
  principal: "admin",
  data: {
    timings_ms: { search: 12.5 },
    stages: {
      merged: 2,
      passages: 2,
      fusion: {
        "ko-company": {
          mode: "weighted",
          dense_weight: 1.0,
          lexical_weight: 0.0,
          reason: "latin query over a hangul knowledge base: dense-led",
          rrf_k: null,
          confidence: 1.0,
          calibrated_dense_weight: 0.55,
        },
      },
    },
    hits: [
      { n: 1, chunk_id: "c1", doc_id: "d1", knowledge_base: "ko-company", title: "한빛로보틱스", score: 0.91 },
      { n: 2, chunk_id: "c2", doc_id: "d2", knowledge_base: "en-docs", title: "Trade fair", score: 0.4 },
    ],
  },
};

vi.mock("../api/endpoints", () => ({ getTrace: () => Promise.resolve(trace) }));

afterEach(cleanup);

const open = () =>
  render(
    <I18nProvider>
      <QueryClientProvider client={new QueryClient()}>
        <RouterProvider
          router={createMemoryRouter([{ path: "/traces/:traceId", element: <TraceDetail /> }], {
            initialEntries: ["/traces/t1"],
          })}
        />
      </QueryClientProvider>
    </I18nProvider>,
  );

describe("a trace's hits", () => {
  it("show beside each hit how hybrid search weighted its knowledge base's legs, and why", async () => {
    open();
    const hits = await screen.findAllByTestId("trace-hit");
    expect(hits).toHaveLength(2);
    const fusion = within(hits[0]).getByTestId("fusion");
    expect(fusion.textContent).toContain("dense 1");
    expect(fusion.textContent).toContain("lexical 0");
    expect(within(hits[0]).getByTestId("fusion-calibrated").textContent).toContain("0.55");
    expect(fusion.textContent).toContain("신뢰도 1");
    expect(within(hits[0]).getByTestId("fusion-reason").textContent).toBe(
      "latin query over a hangul knowledge base: dense-led",
    );
    // a knowledge base searched without fusion shows none
    expect(within(hits[1]).queryByTestId("fusion")).toBeNull();
  });
});
