// 설정: name, description, Top K and Score Threshold sliders, user dictionary words; chunking
// and embedding model read-only (fixed at creation). Saving PATCHes at once and says so.

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useOutletContext } from "react-router";

import { updateKnowledgeBase } from "../../api/endpoints";
import { ErrorMessage } from "../../components/ErrorMessage";
import { useT } from "../../i18n/i18n";
import type { KbContext } from "./KbLayout";

export function SettingsTab() {
  const t = useT();
  const { kb } = useOutletContext<KbContext>();
  const queryClient = useQueryClient();
  const [name, setName] = useState(kb.name);
  const [description, setDescription] = useState(kb.description);
  const [topK, setTopK] = useState(kb.top_k);
  const [threshold, setThreshold] = useState(kb.score_threshold);
  const [words, setWords] = useState(kb.user_words.join("\n"));
  const [saved, setSaved] = useState(false);

  const save = useMutation({
    mutationFn: () =>
      updateKnowledgeBase(kb.id, {
        name: name.trim(),
        description,
        top_k: topK,
        score_threshold: threshold,
        user_words: words.split("\n").map((w) => w.trim()).filter(Boolean),
      }),
    onSuccess: (updated) => {
      queryClient.setQueryData(["kb", kb.id], updated);
      queryClient.invalidateQueries({ queryKey: ["kbs"] });
      setSaved(true);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setSaved(false);
    save.mutate();
  };
  const touch = <T,>(set: (v: T) => void) => (v: T) => {
    setSaved(false);
    set(v);
  };

  return (
    <form className="form settings" onSubmit={submit}>
      <h2>{t("kb.settings")}</h2>
      <label>
        {t("create.name")}
        <input name="name" value={name} onChange={(e) => touch(setName)(e.target.value)} />
      </label>
      <label>
        {t("create.description")}
        <textarea name="description" value={description}
          onChange={(e) => touch(setDescription)(e.target.value)} />
      </label>
      <label>
        {t("settings.topK")}: <output data-testid="top-k-value">{topK}</output>
        <input type="range" name="top_k" min={1} max={50} step={1} value={topK}
          data-testid="top-k" onChange={(e) => touch(setTopK)(Number(e.target.value))} />
      </label>
      <label>
        {t("settings.threshold")}: <output>{threshold.toFixed(2)}</output>
        <input type="range" name="score_threshold" min={0} max={1} step={0.01} value={threshold}
          onChange={(e) => touch(setThreshold)(Number(e.target.value))} />
      </label>
      <label>
        {t("settings.userWords")}
        <textarea name="user_words" rows={4} value={words}
          onChange={(e) => touch(setWords)(e.target.value)} />
      </label>
      <fieldset className="readonly">
        <legend>{t("settings.readOnly")}</legend>
        <dl>
          <dt>{t("settings.chunking")}</dt>
          <dd>
            {t(`chunking.${kb.chunking.strategy}`)} ·{" "}
            {kb.chunking.strategy === "parent_child"
              ? `${kb.chunking.parent_size}/${kb.chunking.child_size}`
              : `${kb.chunking.chunk_size} (${kb.chunking.chunk_overlap}) ${kb.chunking.unit}`}
          </dd>
          <dt>{t("settings.embedding")}</dt>
          <dd>
            {kb.embedding_model} ({kb.embedding_dim})
          </dd>
          <dt>{t("create.metric")}</dt>
          <dd>{kb.metric}</dd>
          <dt>{t("create.vectorStore")}</dt>
          <dd>{kb.vector_store}</dd>
          <dt>{t("create.graphBackend")}</dt>
          <dd>{kb.graph_backend}</dd>
        </dl>
      </fieldset>
      <ErrorMessage error={save.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {t("common.save")}
        </button>
        {saved && (
          <span className="ok" role="status" data-testid="saved">
            ✓ {t("common.saved")}
          </span>
        )}
      </div>
    </form>
  );
}
