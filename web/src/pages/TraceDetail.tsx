// One stored ask: plan, timings per stage, candidates per stage, hits and the answer.

import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "react-router";

import { getTrace } from "../api/endpoints";
import type { FusionInfo } from "../api/types";
import { AnswerText } from "../components/AnswerText";
import { ErrorMessage } from "../components/ErrorMessage";
import { formatScore } from "../components/format";
import { FusionDetails } from "../components/FusionDetails";
import { PlanCard } from "../components/PlanCard";
import { useFormatDate, useT } from "../i18n/i18n";

export function TraceDetail() {
  const t = useT();
  const formatDate = useFormatDate();
  const { traceId = "" } = useParams();
  const trace = useQuery({ queryKey: ["trace", traceId], queryFn: () => getTrace(traceId) });
  if (trace.error) return <ErrorMessage error={trace.error} />;
  if (!trace.data) return <p>{t("common.loading")}</p>;
  const { data } = trace.data;
  const timings = data.timings_ms ?? {};
  // hybrid search weighs its legs once per knowledge base and query: each hit shows its KB's
  const fusion = (data.stages?.fusion ?? {}) as Record<string, FusionInfo | undefined>;
  return (
    <div className="trace" data-testid="trace-detail">
      <Link to="/traces" className="muted">← {t("traces.title")}</Link>
      <h1 data-testid="trace-question">{trace.data.question}</h1>
      <p className="muted">
        {formatDate(trace.data.created_at)} · {trace.data.principal} · {trace.data.status}
      </p>
      <div className="ask-body">
        <div className="ask-main">
          {data.answer !== undefined && (
            <section>
              <h3>{t("traces.answer")} ({data.answer_source})</h3>
              <AnswerText answer={data.answer} passages={data.hits ?? []} onCite={() => {}} />
            </section>
          )}
          <section>
            <h3>{t("traces.timings")}</h3>
            <table className="table compact" data-testid="trace-timings">
              <tbody>
                {Object.entries(timings).map(([stage, ms]) => (
                  <tr key={stage}><td>{stage}</td><td>{ms.toFixed(1)}</td></tr>
                ))}
              </tbody>
            </table>
          </section>
          {data.stages && (
            <section>
              <h3>{t("traces.stages")}</h3>
              <pre className="json">{JSON.stringify(data.stages, null, 2)}</pre>
            </section>
          )}
          {data.hits && (
            <section>
              <h3>{t("traces.hits")}</h3>
              <ol className="passages">
                {data.hits.map((hit) => {
                  const fused = fusion[hit.knowledge_base];
                  return (
                    <li key={hit.n} data-testid="trace-hit">
                      [{hit.n}] {hit.title ?? hit.doc_id} · {hit.knowledge_base} · {formatScore(hit.score)}
                      {fused && (
                        <div className="muted small">
                          <FusionDetails fusion={fused} />
                        </div>
                      )}
                    </li>
                  );
                })}
              </ol>
            </section>
          )}
          {data.error !== undefined && data.error !== null && (
            <pre className="json error">{JSON.stringify(data.error, null, 2)}</pre>
          )}
        </div>
        <aside className="ask-side">
          {data.envelope && <PlanCard envelope={data.envelope} steps={data.steps} />}
        </aside>
      </div>
    </div>
  );
}
