// How graph search took part in a playground query: the question's entities and what they
// matched, the entities reached, the relations traversed, the queries run (spec 001 §3.8).

import type { GraphMetadata } from "../../api/types";
import { useT } from "../../i18n/i18n";

export function GraphMetadataPanel({ meta }: { meta: GraphMetadata }) {
  const t = useT();
  return (
    <section className="graph-meta" data-testid="graph-metadata">
      <h3>
        {t("test.graphMeta")} <span className="badge">{meta.backend}</span>
      </h3>
      {meta.fallback && (
        <p className="warn" data-testid="graph-fallback">
          {t("test.graphFallback")}
          {meta.fallback_reason ? `: ${meta.fallback_reason}` : ""}
        </p>
      )}
      <dl>
        <dt>{t("test.graphExtracted")}</dt>
        <dd>{meta.extracted_entities.join(", ") || "—"}</dd>
        <dt>{t("test.graphMatched")}</dt>
        <dd>
          {meta.matched_entities
            .map((m) => `${m.query} → ${m.entity}${m.exact ? "" : " (~)"}`)
            .join(", ") || "—"}
        </dd>
        <dt>{t("test.graphExpanded")}</dt>
        <dd>{meta.expanded_entities.join(", ") || "—"}</dd>
        <dt>{t("test.hops")}</dt>
        <dd>
          {meta.analysis.hops}
          {meta.analysis.multi_hop ? ` · multi-hop${meta.analysis.pattern ? ` (${meta.analysis.pattern})` : ""}` : ""}
          {meta.analysis.relation_hints.length ? ` · ${meta.analysis.relation_hints.join(", ")}` : ""}
        </dd>
        <dt>{t("test.graphChunks")}</dt>
        <dd>{meta.graph_chunks}</dd>
      </dl>
      {meta.triples.length > 0 && (
        <ul className="triples" data-testid="graph-triples">
          {meta.triples.map((tr, i) => (
            <li key={i}>
              {tr.source} —<em>{tr.type}</em>→ {tr.target}
            </li>
          ))}
        </ul>
      )}
      {meta.queries.length > 0 && (
        <details>
          <summary>{t("test.graphQueries")} ({meta.queries.length})</summary>
          {meta.queries.map((q, i) => (
            <pre key={i} className="json">
              {`-- ${q.language}\n${q.text}\n${JSON.stringify(q.params)}`}
            </pre>
          ))}
        </details>
      )}
    </section>
  );
}
