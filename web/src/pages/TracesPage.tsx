// Stored traces, newest first.

import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router";

import { listTraces } from "../api/endpoints";
import { ErrorMessage } from "../components/ErrorMessage";
import { useFormatDate, useT } from "../i18n/i18n";

export function TracesPage() {
  const t = useT();
  const formatDate = useFormatDate();
  const traces = useQuery({ queryKey: ["traces"], queryFn: () => listTraces(100) });
  return (
    <div>
      <h1>{t("traces.title")}</h1>
      <ErrorMessage error={traces.error} />
      {traces.data?.length === 0 && <p className="muted">{t("traces.empty")}</p>}
      <table className="table" data-testid="traces-table">
        <thead>
          <tr>
            <th>{t("traces.when")}</th>
            <th>{t("traces.question")}</th>
            <th>{t("plan.kbs")}</th>
            <th>{t("plan.source")}</th>
            <th>{t("traces.status")}</th>
          </tr>
        </thead>
        <tbody>
          {traces.data?.map((trace) => (
            <tr key={trace.id}>
              <td>{formatDate(trace.created_at)}</td>
              <td>
                <Link to={`/traces/${trace.id}`}>{trace.question}</Link>
              </td>
              <td>{trace.knowledge_bases.join(", ")}</td>
              <td>{trace.source}</td>
              <td>{trace.status}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
