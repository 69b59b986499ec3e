// Plan inspector: the plan a question would run (POST /ai/v2/plan), with a `now` override,
// without running it.

import { useMutation, useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";

import { listKnowledgeBases, planQuestion } from "../api/endpoints";
import { ErrorMessage } from "../components/ErrorMessage";
import { PlanCard } from "../components/PlanCard";
import { useT } from "../i18n/i18n";

/** A datetime-local value ("2025-11-21T10:00") as ISO in Asia/Seoul, the planner's zone. */
export function seoulIso(local: string): string | undefined {
  if (!local) return undefined;
  return `${local.length === 16 ? `${local}:00` : local}+09:00`;
}

export function PlanInspector() {
  const t = useT();
  const kbs = useQuery({ queryKey: ["kbs"], queryFn: listKnowledgeBases });
  const [question, setQuestion] = useState("");
  const [now, setNow] = useState("");
  const [kb, setKb] = useState("");
  const plan = useMutation({
    mutationFn: () =>
      planQuestion({ question, now: seoulIso(now), ...(kb ? { knowledge_bases: [kb] } : {}) }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (question.trim()) plan.mutate();
  };
  return (
    <div>
      <h1>{t("nav.plan")}</h1>
      <form onSubmit={submit} className="form">
        <label>
          {t("plan.question")}
          <input name="question" value={question} data-testid="plan-question"
            onChange={(e) => setQuestion(e.target.value)} placeholder="9월 글 2개만 보여줘" />
        </label>
        <div className="row">
          <label>
            {t("plan.now")} (Asia/Seoul)
            <input type="datetime-local" name="now" value={now} data-testid="plan-now"
              onChange={(e) => setNow(e.target.value)} />
          </label>
          <label>
            {t("plan.kbs")}
            <select value={kb} onChange={(e) => setKb(e.target.value)}>
              <option value="">{t("ask.allKbs")}</option>
              {kbs.data?.map((k) => <option key={k.id} value={k.name}>{k.name}</option>)}
            </select>
          </label>
        </div>
        <div className="actions">
          <button type="submit" className="primary" disabled={plan.isPending}>
            {t("plan.inspect")}
          </button>
        </div>
      </form>
      <ErrorMessage error={plan.error} />
      {plan.data && <PlanCard envelope={plan.data} />}
    </div>
  );
}
