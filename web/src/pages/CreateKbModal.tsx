// "지식 베이스 만들기": name, description, chunking and its parameters, vector store, graph
// backend, metric. On success the new KB opens.

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useNavigate } from "react-router";

import { createKnowledgeBase } from "../api/endpoints";
import type { ChunkingConfig } from "../api/types";
import { ErrorMessage } from "../components/ErrorMessage";
import { Modal } from "../components/Modal";
import { useT } from "../i18n/i18n";

const STRATEGIES: ChunkingConfig["strategy"][] = ["size", "parent_child", "context_aware"];

export function CreateKbModal({ onClose }: { onClose: () => void }) {
  const t = useT();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [strategy, setStrategy] = useState<ChunkingConfig["strategy"]>("size");
  const [chunkSize, setChunkSize] = useState(800);
  const [overlap, setOverlap] = useState(100);
  const [parentSize, setParentSize] = useState(2000);
  const [childSize, setChildSize] = useState(400);
  const [vectorStore, setVectorStore] = useState("milvus");
  const [graphBackend, setGraphBackend] = useState("none");
  const [metric, setMetric] = useState("COSINE");

  const create = useMutation({
    mutationFn: () =>
      createKnowledgeBase({
        name: name.trim(),
        description,
        metric,
        vector_store: vectorStore,
        graph_backend: graphBackend,
        chunking:
          strategy === "parent_child"
            ? { strategy, parent_size: parentSize, child_size: childSize }
            : { strategy, chunk_size: chunkSize, chunk_overlap: overlap },
      }),
    onSuccess: (kb) => {
      queryClient.invalidateQueries({ queryKey: ["kbs"] });
      onClose();
      navigate(`/kb/${kb.id}`);
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };

  return (
    <Modal title={t("dash.create")} onClose={onClose}>
      <form onSubmit={submit} className="form">
        <label>
          {t("create.name")}
          <input name="name" required value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          {t("create.description")}
          <textarea
            name="description"
            value={description}
            onChange={(e) => setDescription(e.target.value)}
          />
        </label>
        <label>
          {t("create.chunking")}
          <select
            name="chunking"
            value={strategy}
            onChange={(e) => setStrategy(e.target.value as ChunkingConfig["strategy"])}
          >
            {STRATEGIES.map((s) => (
              <option key={s} value={s}>
                {t(`chunking.${s}`)}
              </option>
            ))}
          </select>
        </label>
        {strategy === "parent_child" ? (
          <div className="row">
            <NumberField label={t("create.parentSize")} value={parentSize} set={setParentSize}
              min={100} />
            <NumberField label={t("create.childSize")} value={childSize} set={setChildSize} min={20} />
          </div>
        ) : (
          <div className="row">
            <NumberField label={t("create.chunkSize")} value={chunkSize} set={setChunkSize} min={20} />
            <NumberField label={t("create.chunkOverlap")} value={overlap} set={setOverlap} min={0} />
          </div>
        )}
        <div className="row">
          <Choice label={t("create.vectorStore")} value={vectorStore} set={setVectorStore}
            options={["milvus", "pgvector"]} />
          <Choice label={t("create.graphBackend")} value={graphBackend} set={setGraphBackend}
            options={["none", "ontology", "neo4j"]} />
          <Choice label={t("create.metric")} value={metric} set={setMetric}
            options={["COSINE", "L2", "IP"]} />
        </div>
        <ErrorMessage error={create.error} />
        <div className="actions">
          <button type="button" onClick={onClose}>
            {t("common.cancel")}
          </button>
          <button type="submit" className="primary" disabled={create.isPending || !name.trim()}>
            {t("common.create")}
          </button>
        </div>
      </form>
    </Modal>
  );
}

function NumberField(props: {
  label: string;
  value: number;
  set: (v: number) => void;
  min?: number;
}) {
  return (
    <label>
      {props.label}
      <input type="number" min={props.min ?? 1} value={props.value}
        onChange={(e) => props.set(Number(e.target.value))} />
    </label>
  );
}

function Choice(props: {
  label: string;
  value: string;
  set: (v: string) => void;
  options: string[];
}) {
  return (
    <label>
      {props.label}
      <select value={props.value} onChange={(e) => props.set(e.target.value)}>
        {props.options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </label>
  );
}
