// One retrieval result: rank, score, the scores behind it, fusion and graph details, the text.

import type { Hit } from "../../api/types";
import { formatScore } from "../../components/format";
import { FusionDetails } from "../../components/FusionDetails";
import { useT } from "../../i18n/i18n";

function present<T>(value: T | null | undefined): value is T {
  return value !== null && value !== undefined;
}

export function HitCard({ hit, rank }: { hit: Hit; rank: number }) {
  const t = useT();
  const m = hit.metadata;
  const l2 = m.l2_distance;
  const parts: [string, number | null | undefined][] = [
    ["dense", m.dense_score],
    ["lexical", m.lexical_score],
    ["title", m.title_score],
    ["rerank", m.rerank_score],
  ];
  return (
    <article className="hit" data-testid="hit">
      <header>
        <span className="rank">#{rank}</span>
        <strong className="score" data-testid="hit-score">
          {t("test.score")} {formatScore(hit.score)}
        </strong>
        {l2 !== null && l2 !== undefined && (
          <span className="l2">
            {t("test.l2")} {formatScore(1 / (1 + l2))} (L2 {l2.toFixed(3)})
          </span>
        )}
        <span className="muted small">
          {m.filename ?? hit.doc_id}
          {m.page !== null && m.page !== undefined ? ` · p.${m.page}` : ""}
          {m.date ? ` · ${m.date}` : ""}
        </span>
      </header>
      <pre className="chunk-text" data-testid="hit-content">{hit.content}</pre>
      <footer className="muted small">
        {parts
          .filter(([, v]) => v !== null && v !== undefined)
          .map(([name, v]) => `${name} ${formatScore(v)}`)
          .join(" · ")}
        {present(m.dense_rank) && present(m.lexical_rank) && (
          <div data-testid="leg-ranks">
            {t("test.legRanks")}: dense #{m.dense_rank} · lexical #{m.lexical_rank}
          </div>
        )}
        {m.fusion && <FusionDetails fusion={m.fusion} />}
      </footer>
      {(m.graph_score !== null && m.graph_score !== undefined) || m.graph_entities?.length ? (
        <div className="muted small" data-testid="hit-graph">
          {t("kb.graph")} {formatScore(m.graph_score)}
          {m.graph_entities?.length ? ` · ${m.graph_entities.join(", ")}` : ""}
        </div>
      ) : null}
    </article>
  );
}
