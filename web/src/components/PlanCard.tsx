// The search plan, never hidden: strategy, time range and the words it came from, sort, limit,
// knowledge bases, who made the plan (llm / heuristic / fallback and why), any relaxation and
// the steps of a multi-step plan.

import type { PlanEnvelope, StepRecord } from "../api/types";
import { useT } from "../i18n/i18n";
import type { MessageKey } from "../i18n/messages";
import { PlanSteps } from "./PlanSteps";

export function describeTime(envelope: PlanEnvelope): string | null {
  const time = envelope.plan.filters.time;
  if (!time || (!time.from && !time.to)) return null;
  return `${time.from ?? "…"} ~ ${time.to ?? "…"}`;
}

/** "hybrid (sequential) + rerank + graph 2 hops"; a plan that does not search names its mode. */
export function describeStrategy({ plan }: PlanEnvelope): string {
  if (plan.mode !== "rag") return plan.mode;
  return [
    plan.strategy === "hybrid" ? `hybrid (${plan.hybrid_mode})` : plan.strategy,
    plan.rerank.enabled ? "rerank" : "",
    plan.graph.enabled ? `graph ${plan.graph.hops} hops` : "",
  ]
    .filter(Boolean)
    .join(" + ");
}

const RELAXED_FILTERS: Record<string, MessageKey> = {
  time: "plan.filter.time",
  title_contains: "plan.filter.title_contains",
  tags: "plan.filter.tags",
  domains: "plan.filter.domains",
  authors: "plan.filter.authors",
};

/** What the relaxation dropped, in the user's language from its steps (the server's sentence
 *  when it gave none). */
export function describeRelaxation(
  relaxed: NonNullable<PlanEnvelope["relaxed"]>,
  t: (key: MessageKey, vars?: Record<string, string | number>) => string,
): string {
  if (!relaxed.steps?.length) return relaxed.reason;
  const steps = relaxed.steps.map((step) =>
    t("plan.relaxedStep", {
      filter: RELAXED_FILTERS[step.filter] ? t(RELAXED_FILTERS[step.filter]) : step.filter,
      value: step.value,
      count: step.documents,
    }),
  );
  return `${t("plan.relaxedLead")} ${steps.join("; ")}`;
}

export function PlanCard({ envelope, steps }: { envelope: PlanEnvelope; steps?: StepRecord[] }) {
  const t = useT();
  const { plan } = envelope;
  const time = describeTime(envelope);
  const filters = plan.filters;
  const otherFilters = [
    filters.authors.length ? `authors: ${filters.authors.join(", ")}` : "",
    filters.domains.length ? `domains: ${filters.domains.join(", ")}` : "",
    filters.tags.length ? `tags: ${filters.tags.join(", ")}` : "",
    filters.title_contains ? `title ∋ ${filters.title_contains}` : "",
    filters.doc_ids.length ? `docs: ${filters.doc_ids.length}` : "",
  ].filter(Boolean);
  const relaxedTime = envelope.relaxed?.dropped?.time;
  return (
    <section className="plan-card" data-testid="plan-card">
      <h3>
        {t("plan.title")}{" "}
        <span className={`badge source-${envelope.source}`} data-testid="plan-source">
          {envelope.source}
        </span>
      </h3>
      <dl>
        {envelope.followup && envelope.followup.source !== "none" && (
          <>
            <dt>{t("plan.followup")}</dt>
            <dd data-testid="plan-followup">
              {envelope.followup.standalone}
              <span className="muted small">
                {" "}({envelope.followup.source}
                {envelope.followup.carried.length ? ` · ${envelope.followup.carried.join(", ")}` : ""}
                {envelope.followup.reason ? ` · ${envelope.followup.reason}` : ""})
              </span>
            </dd>
          </>
        )}
        <dt>{t("plan.strategy")}</dt>
        <dd data-testid="plan-strategy">{describeStrategy(envelope)}</dd>
        <dt>{t("plan.time")}</dt>
        <dd data-testid="plan-time">
          {time ?? t("plan.allTime")}
          {filters.time?.expression && <q className="expr">{filters.time.expression}</q>}
        </dd>
        <dt>{t("plan.sort")}</dt>
        <dd data-testid="plan-sort">{plan.sort}</dd>
        <dt>{t("plan.limit")}</dt>
        <dd data-testid="plan-limit">{plan.limit ?? t("plan.noLimit")}</dd>
        <dt>{t("plan.topK")}</dt>
        <dd>{plan.top_k}</dd>
        <dt>{t("plan.kbs")}</dt>
        <dd data-testid="plan-kbs">{plan.knowledge_bases.join(", ") || "—"}</dd>
        {otherFilters.length > 0 && (
          <>
            <dt>{t("plan.filters")}</dt>
            <dd>{otherFilters.join(" · ")}</dd>
          </>
        )}
        <dt>{t("plan.source")}</dt>
        <dd>
          {envelope.source}
          {envelope.fallback_reason && (
            <span className="warn" data-testid="plan-fallback-reason">
              {" "}— {t("plan.reason")}: {envelope.fallback_reason}
            </span>
          )}
        </dd>
        {envelope.relaxed && (
          <>
            <dt>{t("plan.relaxed")}</dt>
            <dd className="warn" data-testid="plan-relaxed">
              {describeRelaxation(envelope.relaxed, t)}
              {relaxedTime && (relaxedTime.from || relaxedTime.to) && (
                <> ({relaxedTime.from ?? "…"} ~ {relaxedTime.to ?? "…"}
                  {relaxedTime.expression ? ` «${relaxedTime.expression}»` : ""})</>
              )}
            </dd>
          </>
        )}
        {plan.rationale && (
          <>
            <dt>{t("plan.rationale")}</dt>
            <dd className="muted">{plan.rationale}</dd>
          </>
        )}
      </dl>
      <PlanSteps envelope={envelope} steps={steps} />
      <details>
        <summary>{t("plan.json")}</summary>
        <pre className="json">{JSON.stringify(envelope, null, 2)}</pre>
      </details>
    </section>
  );
}
