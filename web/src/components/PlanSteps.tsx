// The steps of a multi-step plan on the plan card: each step's query (earlier answers filled
// in), strategy, how many passages it found and the (bridge) answer it read. Planned steps not
// run yet show their planned query; a step the server added at run time (adaptive) is listed too.

import type { PlanEnvelope, StepRecord } from "../api/types";
import { useT } from "../i18n/i18n";

export interface StepRow {
  id: string;
  query: string;
  strategy: string;
  hits: number | null;
  answer: string | null;
  status: string | null;
  reason: string | null;
  adaptive: boolean;
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
    });
  }
  return rows;
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
            </div>
            {row.answer && (
              <div>
                {t("plan.stepAnswer")}: <strong data-testid="step-answer">{row.answer}</strong>
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
