// Home: every knowledge base the caller may read, and the "create" modal.

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router";

import { listKnowledgeBases } from "../api/endpoints";
import type { KnowledgeBase } from "../api/types";
import { ErrorMessage } from "../components/ErrorMessage";
import { formatBytes } from "../components/format";
import { useFormatDate, useT } from "../i18n/i18n";
import { CreateKbModal } from "./CreateKbModal";

export function Dashboard() {
  const t = useT();
  const [creating, setCreating] = useState(false);
  const kbs = useQuery({ queryKey: ["kbs"], queryFn: listKnowledgeBases });

  return (
    <section>
      <div className="page-head">
        <h1>{t("nav.dashboard")}</h1>
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          {t("dash.create")}
        </button>
      </div>
      {kbs.isPending && <p>{t("common.loading")}</p>}
      <ErrorMessage error={kbs.error} />
      {kbs.data && kbs.data.length === 0 && <p className="muted">{t("dash.empty")}</p>}
      <div className="kb-grid">
        {kbs.data?.map((kb) => <KbCard key={kb.id} kb={kb} />)}
      </div>
      {creating && <CreateKbModal onClose={() => setCreating(false)} />}
    </section>
  );
}

function KbCard({ kb }: { kb: KnowledgeBase }) {
  const t = useT();
  const formatDate = useFormatDate();
  const graph = kb.graph ?? null;
  const hasGraph = kb.graph_backend !== "none";
  return (
    <Link to={`/kb/${kb.id}`} className="kb-card" data-testid="kb-card">
      <h2>{kb.name}</h2>
      {kb.description && <p className="muted">{kb.description}</p>}
      <dl>
        <dt>{t("dash.documents")}</dt>
        <dd data-testid="kb-doc-count">{kb.stats.document_count}</dd>
        <dt>{t("dash.chunks")}</dt>
        <dd>{kb.stats.chunk_count}</dd>
        <dt>{t("dash.size")}</dt>
        <dd>{formatBytes(kb.stats.size_bytes)}</dd>
        <dt>{t("dash.updated")}</dt>
        <dd>{formatDate(kb.stats.last_updated ?? kb.updated_at)}</dd>
        <dt>{t("dash.vectorStore")}</dt>
        <dd>{kb.vector_store}</dd>
        <dt>{t("dash.graph")}</dt>
        <dd data-testid="kb-graph">
          {!hasGraph
            ? t("common.none")
            : graph?.error
              ? `${kb.graph_backend} · ${graph.error}`
              : `${kb.graph_backend} · ${graph?.entities ?? 0} ${t("dash.entities")}, ${graph?.relations ?? 0} ${t("dash.relations")}`}
        </dd>
      </dl>
    </Link>
  );
}
