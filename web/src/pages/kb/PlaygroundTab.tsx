// 테스트: the retrieval playground. A query with a strategy and its options; results as chunks
// with their score (and the L2 score when flat L2 ran), fusion details and graph metadata.

import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useOutletContext } from "react-router";

import { retrieve } from "../../api/endpoints";
import type { RetrieveRequest, Strategy } from "../../api/types";
import { ErrorMessage } from "../../components/ErrorMessage";
import { useT } from "../../i18n/i18n";
import type { KbContext } from "./KbLayout";
import { GraphMetadataPanel } from "./GraphMetadataPanel";
import { HitCard } from "./HitCard";

const STRATEGIES: Strategy[] = ["ann", "keyword", "bm25", "hybrid", "2-stage"];

export function PlaygroundTab() {
  const t = useT();
  const { kb } = useOutletContext<KbContext>();
  const hasGraph = kb.graph_backend !== "none";
  const [query, setQuery] = useState("");
  const [asked, setAsked] = useState("");
  const [strategy, setStrategy] = useState<Strategy>("hybrid");
  const [hybridMode, setHybridMode] = useState<"sequential" | "parallel">("sequential");
  const [topK, setTopK] = useState(kb.top_k);
  const [threshold, setThreshold] = useState(kb.score_threshold);
  const [rerank, setRerank] = useState(false);
  const [ner, setNer] = useState(false);
  const [flatL2, setFlatL2] = useState(false);
  const [graph, setGraph] = useState(false);
  const [hops, setHops] = useState(2);
  const [author, setAuthor] = useState("");
  const [dateFrom, setDateFrom] = useState("");
  const [dateTo, setDateTo] = useState("");

  const search = useMutation({ mutationFn: (body: RetrieveRequest) => retrieve(kb.id, body) });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!query.trim()) return;
    const filters = {
      ...(author.trim() ? { authors: [author.trim()] } : {}),
      ...(dateFrom ? { date_from: dateFrom } : {}),
      ...(dateTo ? { date_to: dateTo } : {}),
    };
    setAsked(query);
    search.mutate({
      query,
      strategy,
      top_k: topK,
      score_threshold: threshold,
      ...(strategy === "hybrid" ? { hybrid_mode: hybridMode } : {}),
      use_reranker: rerank && strategy !== "2-stage",
      use_ner_filter: ner,
      // Spec 001: choosing 2-stage turns flat L2 on.
      use_brute_force: flatL2 || strategy === "2-stage",
      ...(graph ? { enable_graph_search: true, graph_hops: hops } : {}),
      ...(Object.keys(filters).length ? { filters } : {}),
    });
  };

  return (
    <div className="playground">
      <h2>{t("kb.test")}</h2>
      <form onSubmit={submit} className="form">
        <div className="chat-input">
          <input name="query" value={query} placeholder={t("test.placeholder")}
            onChange={(e) => setQuery(e.target.value)} data-testid="playground-query" />
          <button type="submit" className="primary" disabled={search.isPending}>
            {t("test.search")}
          </button>
        </div>
        <div className="options">
          <label>
            {t("test.strategy")}
            <select name="strategy" value={strategy}
              onChange={(e) => setStrategy(e.target.value as Strategy)}>
              {STRATEGIES.map((s) => <option key={s} value={s}>{s}</option>)}
            </select>
          </label>
          {strategy === "hybrid" && (
            <label>
              {t("test.hybridMode")}
              <select value={hybridMode}
                onChange={(e) => setHybridMode(e.target.value as "sequential" | "parallel")}>
                <option value="sequential">sequential</option>
                <option value="parallel">parallel (RRF)</option>
              </select>
            </label>
          )}
          <label>
            Top K: {topK}
            <input type="range" min={1} max={50} value={topK}
              onChange={(e) => setTopK(Number(e.target.value))} />
          </label>
          <label>
            {t("settings.threshold")}: {threshold.toFixed(2)}
            <input type="range" min={0} max={1} step={0.01} value={threshold}
              onChange={(e) => setThreshold(Number(e.target.value))} />
          </label>
          <Check label={t("test.rerank")} value={rerank && strategy !== "2-stage"} set={setRerank}
            disabled={strategy === "2-stage"} />
          <Check label={t("test.ner")} value={ner} set={setNer} />
          <Check label={t("test.flatL2")} value={flatL2 || strategy === "2-stage"} set={setFlatL2}
            disabled={strategy === "2-stage" || graph} />
          <Check label={t("test.graph")} value={graph} set={setGraph}
            disabled={!hasGraph || flatL2} />
          {graph && (
            <label>
              {t("test.hops")}
              <input type="number" min={1} max={5} value={hops}
                onChange={(e) => setHops(Number(e.target.value))} />
            </label>
          )}
        </div>
        <details>
          <summary>{t("test.filters")}</summary>
          <div className="row">
            <label>
              {t("docs.author")}
              <input value={author} onChange={(e) => setAuthor(e.target.value)} />
            </label>
            <label>
              {t("docs.date")} ≥
              <input type="date" value={dateFrom} onChange={(e) => setDateFrom(e.target.value)} />
            </label>
            <label>
              {t("docs.date")} ≤
              <input type="date" value={dateTo} onChange={(e) => setDateTo(e.target.value)} />
            </label>
          </div>
        </details>
      </form>
      <ErrorMessage error={search.error} />
      {asked && search.data && (
        <div className="results" data-testid="playground-results">
          <p className="bubble">{asked}</p>
          {search.data.length === 0 && <p className="muted">{t("test.noResults")}</p>}
          {search.data[0]?.graph_metadata && (
            <GraphMetadataPanel meta={search.data[0].graph_metadata} />
          )}
          {search.data.map((hit, i) => <HitCard key={hit.chunk_id} hit={hit} rank={i + 1} />)}
        </div>
      )}
    </div>
  );
}

function Check(props: { label: string; value: boolean; set: (v: boolean) => void; disabled?: boolean }) {
  return (
    <label className="check">
      <input type="checkbox" checked={props.value} disabled={props.disabled}
        onChange={(e) => props.set(e.target.checked)} />
      {props.label}
    </label>
  );
}
