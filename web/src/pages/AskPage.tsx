// Ask: a question over POST /ai/v2/ask; the plan card, the streamed answer with [n] citations
// linked to their passages, and a link to the stored trace.

import { useQuery } from "@tanstack/react-query";
import { useEffect, useReducer, useRef, useState, type FormEvent } from "react";
import { Link } from "react-router";

import { applyAskEvent, initialAskState, streamAsk, type AskEvent, type AskState } from "../api/ask";
import { listKnowledgeBases } from "../api/endpoints";
import { AnswerText } from "../components/AnswerText";
import { ErrorMessage } from "../components/ErrorMessage";
import { formatScore } from "../components/format";
import { PlanCard } from "../components/PlanCard";
import { useServerText, useT } from "../i18n/i18n";

type Action =
  | { type: "reset" }
  | { type: "clear" }
  | { type: "event"; event: AskEvent }
  | { type: "failed" };

function reducer(state: AskState, action: Action): AskState {
  if (action.type === "reset") return { ...initialAskState, status: "streaming" };
  if (action.type === "clear") return initialAskState;
  if (action.type === "failed") return { ...state, status: state.end ? "done" : "error" };
  return applyAskEvent(state, action.event);
}

export function AskPage() {
  const t = useT();
  const kbs = useQuery({ queryKey: ["kbs"], queryFn: listKnowledgeBases });
  const [question, setQuestion] = useState("");
  const [chosen, setChosen] = useState<string[]>([]);
  const [state, dispatch] = useReducer(reducer, initialAskState);
  const [failure, setFailure] = useState<unknown>(null);
  const [highlight, setHighlight] = useState<number | null>(null);
  const [asked, setAsked] = useState("");
  // A conversation: earlier turns, and the id the server keeps them under (from `end`).
  const [past, setPast] = useState<{ question: string; state: AskState }[]>([]);
  const [conversationId, setConversationId] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);

  useEffect(() => {
    if (state.end?.conversation_id) setConversationId(state.end.conversation_id);
  }, [state.end]);

  const newConversation = () => {
    abort.current?.abort();
    setPast([]);
    setConversationId(null);
    setAsked("");
    setFailure(null);
    dispatch({ type: "clear" });
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!question.trim()) return;
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    if (asked && state.status === "done") setPast([...past, { question: asked, state }]);
    setAsked(question);
    setQuestion("");
    dispatch({ type: "reset" });
    setFailure(null);
    setHighlight(null);
    try {
      await streamAsk(
        {
          question,
          ...(chosen.length ? { knowledge_bases: chosen } : {}),
          ...(conversationId ? { conversation_id: conversationId } : {}),
        },
        (e) => dispatch({ type: "event", event: e }),
        controller.signal,
      );
    } catch (error) {
      if (!controller.signal.aborted) {
        setFailure(error);
        dispatch({ type: "failed" });
      }
    }
  };

  const cite = (n: number) => {
    setHighlight(n);
    document.getElementById(`passage-${n}`)?.scrollIntoView({ block: "nearest", behavior: "smooth" });
  };
  const streaming = state.status === "streaming";

  return (
    <div className="ask">
      <div className="page-head">
        <h1>{t("nav.ask")}</h1>
        {(past.length > 0 || asked) && (
          <button type="button" onClick={newConversation} data-testid="new-conversation">
            {t("ask.newConversation")}
          </button>
        )}
      </div>
      <form onSubmit={submit} className="form">
        <div className="kb-choice">
          <span className="muted">{t("plan.kbs")}:</span>
          {kbs.data?.map((kb) => (
            <label key={kb.id} className="check">
              <input type="checkbox" checked={chosen.includes(kb.name)}
                onChange={(e) =>
                  setChosen(e.target.checked ? [...chosen, kb.name] : chosen.filter((n) => n !== kb.name))
                } />
              {kb.name}
            </label>
          ))}
          {chosen.length === 0 && <span className="muted small">({t("ask.allKbs")})</span>}
        </div>
        <div className="chat-input">
          <textarea name="question" rows={2} value={question} placeholder={t("ask.placeholder")}
            data-testid="ask-question" onChange={(e) => setQuestion(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
                e.preventDefault();
                e.currentTarget.form?.requestSubmit();
              }
            }} />
          {streaming ? (
            <button type="button" onClick={() => abort.current?.abort()}>{t("ask.stop")}</button>
          ) : (
            <button type="submit" className="primary">{t("ask.send")}</button>
          )}
        </div>
      </form>
      <ErrorMessage error={failure} />
      {state.error && <StreamError error={state.error} />}
      <div className="ask-body">
        <div className="ask-main">
          {past.map((turn, i) => (
            <section key={i} className="turn past" data-testid="past-turn">
              <p className="bubble">{turn.question}</p>
              <AnswerText answer={turn.state.answer} passages={[]} onCite={() => {}} />
              {turn.state.envelope && (
                <p className="muted small">
                  {t("plan.source")}: {turn.state.envelope.source}
                  {turn.state.end?.trace_id && (
                    <>
                      {" · "}
                      <Link to={`/traces/${turn.state.end.trace_id}`}>{t("ask.openTrace")}</Link>
                    </>
                  )}
                </p>
              )}
            </section>
          ))}
          {asked && <p className="bubble" data-testid="current-question">{asked}</p>}
          {(state.answer || streaming) && (
            <section className="answer-box" data-status={state.status} data-testid="answer-box">
              <AnswerText answer={state.answer} passages={state.passages} onCite={cite} />
              {streaming && <span className="cursor">▍</span>}
              {state.end && (
                <p className="muted small">
                  {t("ask.answerSource")}: {state.end.answer_source}
                  {state.end.trace_id && (
                    <>
                      {" · "}
                      <Link to={`/traces/${state.end.trace_id}`} data-testid="open-trace">
                        {t("ask.openTrace")}
                      </Link>
                    </>
                  )}
                </p>
              )}
            </section>
          )}
          {state.status === "done" && (
            <p className="muted small">{t("ask.followupHint")}</p>
          )}
          {state.evidence && !state.evidence.exists && (
            <p className="warn">{t("ask.noEvidence")}</p>
          )}
          {state.passages.length > 0 && (
            <section>
              <h3>{t("ask.passages")}</h3>
              <ol className="passages">
                {state.passages.map((p) => (
                  <li key={p.n} id={`passage-${p.n}`} data-testid="passage"
                    className={highlight === p.n ? "passage highlighted" : "passage"}>
                    <div className="muted small">
                      [{p.n}] {p.title ?? p.doc_id} · {p.knowledge_base}
                      {p.date ? ` · ${p.date}` : ""} · {formatScore(p.score)}
                    </div>
                    <pre className="chunk-text">{p.content}</pre>
                  </li>
                ))}
              </ol>
            </section>
          )}
        </div>
        <aside className="ask-side">
          {state.envelope && <PlanCard envelope={state.envelope} steps={state.steps} />}
        </aside>
      </div>
    </div>
  );
}

/** An `error` event of the stream, in the user's language (the server's words for an unknown
 *  code). */
function StreamError({ error }: { error: NonNullable<AskState["error"]> }) {
  const serverText = useServerText();
  const shown = serverText({ code: error.code, params: error.params, text: error.message });
  return (
    <div className="error" role="alert" data-code={error.code} data-testid="stream-error">
      {shown.text} ({error.code})
      {shown.detail && <div className="small muted">{shown.detail}</div>}
    </div>
  );
}
