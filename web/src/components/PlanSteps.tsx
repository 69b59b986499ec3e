// The steps of a multi-step plan on the plan card: each step's query (earlier answers filled
// in), strategy, how many passages it found, the answer type it asks for and the (bridge)
// answer it read, with where that answer came from (graph, reader, LLM). Planned steps not
// run yet show their planned query; a step the server added at run time (adaptive) is listed too.

import type { PlanEnvelope, StepRecord } from "../api/types";
import { useT } from "../i18n/i18n";
import type { MessageKey } from "../i18n/messages";

export interface StepRow {
  id: string;
  query: string;
  strategy: string;
  hits: number | null;
  answer: string | null;
  status: string | null;
  reason: string | null;
  adaptive: boolean;
  expectedType: string | null;
  source: string | null;
}

const REFERENCE = /\{\{\s*(s\d+)\.answer\s*\}\}/g;

/** Planned steps merged with the records of those that ran (by id), in order. */
export function stepRows(envelope: PlanEnvelope, records: StepRecord[] = []): StepRow[] {
  const { plan } = envelope;
  const ran = new Map(records.map((r) => [r.id, r]));
  const answers = new Map(records.filter((r) => r.answer).map((r) => [r.id, r.answer!.text]));
  const fill = (query: string) =>
    query.replace(REFERENCE, (whole, id: string) => answers.get(id) ?? whole);
  const planned = plan.steps ?? [];
  const rows: StepRow[] = planned.map((step) => {
    const record = ran.get(step.id);
    return {
      id: step.id,
      query: record?.query ?? fill(step.query),
      strategy: record?.plan.strategy ?? step.strategy ?? plan.strategy,
      hits: record ? record.hits.length : null,
      answer: record?.answer?.text ?? null,
      status: record?.status ?? null,
      reason: record?.reason ?? null,
      adaptive: false,
      expectedType: record?.expected_type ?? null,
      source: record?.answer?.source ?? null,
    };
  });
  const plannedIds = new Set(planned.map((s) => s.id));
  for (const record of records) {
    if (plannedIds.has(record.id)) continue;
    rows.push({
      id: record.id,
      query: record.query,
      strategy: record.plan.strategy,
      hits: record.hits.length,
      answer: record.answer?.text ?? null,
      status: record.status,
      reason: record.reason,
      adaptive: record.adaptive,
      expectedType: record.expected_type ?? null,
      source: record.answer?.source ?? null,
    });
  }
  return rows;
}

type Translate = ReturnType<typeof useT>;

const TYPE_KEYS: Record<string, MessageKey> = {
  PERSON: "plan.type.person",
  ORGANIZATION: "plan.type.organization",
  PLACE: "plan.type.place",
  PRODUCT: "plan.type.product",
  DATE: "plan.type.date",
  NUMBER: "plan.type.number",
};
const SOURCE_KEYS: Record<string, MessageKey> = {
  graph: "plan.source.graph",
  extractive: "plan.source.reader",
  llm: "plan.source.llm",
};

function typeName(t: Translate, kind: string): string {
  return TYPE_KEYS[kind] ? t(TYPE_KEYS[kind]) : kind;
}

function sourceName(t: Translate, source: string): string {
  return SOURCE_KEYS[source] ? t(SOURCE_KEYS[source]) : source;
}

export function PlanSteps({ envelope, steps }: { envelope: PlanEnvelope; steps?: StepRecord[] }) {
  const t = useT();
  const rows = stepRows(envelope, steps);
  if (rows.length === 0) return null;
  return (
    <div className="plan-steps">
      <h4>{t("plan.steps")}</h4>
      <ol data-testid="plan-steps">
        {rows.map((row) => (
          <li key={row.id} data-testid="plan-step" data-step={row.id} data-status={row.status ?? "planned"}>
            <div>
              <span className="badge">{row.id}</span>{" "}
              <span data-testid="step-query">{row.query}</span>
              {row.adaptive && <span className="muted small"> ({t("plan.stepAdaptive")})</span>}
            </div>
            <div className="muted small">
              {row.strategy}
              {" · "}
              <span data-testid="step-hits">
                {row.hits === null ? t("plan.stepNotRun") : t("plan.stepHits", { count: row.hits })}
              </span>
              {row.expectedType && (
                <>
                  {" · "}
                  {t("plan.stepExpects")}{" "}
                  <span data-testid="step-expected-type" data-type={row.expectedType}>
                    {typeName(t, row.expectedType)}
                  </span>
                </>
              )}
            </div>
            {row.answer && (
              <div>
                {t("plan.stepAnswer")}: <strong data-testid="step-answer">{row.answer}</strong>
                {row.source && (
                  <span className="muted small" data-testid="step-source" data-source={row.source}>
                    {" "}({t("plan.stepFrom")} {sourceName(t, row.source)})
                  </span>
                )}
              </div>
            )}
            {!row.answer && row.status && row.status !== "ok" && (
              <div className="warn small" data-testid="step-reason">
                {t(row.status === "empty" ? "plan.stepEmpty" : "plan.stepNoAnswer")}
              </div>
            )}
          </li>
        ))}
      </ol>
    </div>
  );
}
