// POST /ai/v2/ask over SSE: a pure reducer folds each event into the view state (tested on its
// own), and `streamAsk` feeds it from @microsoft/fetch-event-source (an EventSource that POSTs).

import { fetchEventSource } from "@microsoft/fetch-event-source";

import { authHeaders } from "../auth/credentials";
import { ApiError, errorFromResponse } from "./client";
import type { Passage, PassageRef, PlanEnvelope, StepRecord } from "./types";

export interface AskEnd {
  trace_id: string | null;
  conversation_id?: string | null;
  answer_source: string;
  citations: PassageRef[];
  timings_ms: Record<string, number>;
}

export interface AskState {
  status: "idle" | "streaming" | "done" | "error";
  envelope: PlanEnvelope | null;
  /** The steps of a multi-step plan as they ran (`step` events), in order. */
  steps: StepRecord[];
  hits: PassageRef[];
  stages: Record<string, unknown> | null;
  relaxed: boolean;
  evidence: { exists: boolean; count: number; threshold: number | null } | null;
  passages: Passage[];
  answer: string;
  end: AskEnd | null;
  error: {
    code: string;
    message: string;
    params?: Record<string, string | number>;
    trace_id?: string | null;
  } | null;
}

export const initialAskState: AskState = {
  status: "idle",
  envelope: null,
  steps: [],
  hits: [],
  stages: null,
  relaxed: false,
  evidence: null,
  passages: [],
  answer: "",
  end: null,
  error: null,
};

export interface AskEvent {
  event: string;
  data: string;
}

/** Folds one server-sent event into the state. Unknown events are ignored (forward-compatible). */
export function applyAskEvent(state: AskState, message: AskEvent): AskState {
  if (!message.event || !message.data) return state; // heartbeats, comments
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(message.data) as Record<string, unknown>;
  } catch {
    return state;
  }
  switch (message.event) {
    case "search_plan":
      return { ...state, status: "streaming", envelope: data as unknown as PlanEnvelope };
    case "step":
      return { ...state, steps: [...state.steps, data as unknown as StepRecord] };
    case "search_result":
      return {
        ...state,
        hits: (data.hits as PassageRef[]) ?? [],
        stages: (data.stages as Record<string, unknown>) ?? null,
        relaxed: Boolean(data.relaxed),
      };
    case "exist_in_post_status":
      return { ...state, evidence: data as unknown as AskState["evidence"] };
    case "context":
      return { ...state, passages: (data.passages as Passage[]) ?? [] };
    case "answer":
      return { ...state, answer: state.answer + String(data.delta ?? "") };
    case "end":
      return { ...state, status: "done", end: data as unknown as AskEnd };
    case "error":
      return {
        ...state,
        status: "error",
        error: {
          code: String(data.code ?? "error"),
          message: String(data.message ?? ""),
          params: (data.params as Record<string, string | number> | undefined) ?? {},
          trace_id: (data.trace_id as string | null | undefined) ?? null,
        },
      };
    default:
      return state;
  }
}

export interface AskRequestBody {
  question: string;
  knowledge_bases?: string[];
  now?: string;
  /** Continue a conversation the server keeps (the id comes back on `end`). */
  conversation_id?: string;
}

class FatalStreamError extends Error {}

/** Streams one ask; `onEvent` gets every event. Resolves when the stream ends; rejects with an
 *  ApiError when the request is refused before streaming (401, 403, 404, 422…). */
export async function streamAsk(
  body: AskRequestBody,
  onEvent: (event: AskEvent) => void,
  signal?: AbortSignal,
): Promise<void> {
  let refused = null as ApiError | null;
  try {
    await fetchEventSource("/ai/v2/ask", {
      method: "POST",
      headers: { "Content-Type": "application/json", ...authHeaders() },
      body: JSON.stringify(body),
      signal,
      openWhenHidden: true,
      async onopen(response) {
        const type = response.headers.get("content-type") ?? "";
        if (response.ok && type.startsWith("text/event-stream")) return;
        refused = await errorFromResponse(response);
        throw new FatalStreamError(refused.message);
      },
      onmessage(message) {
        onEvent({ event: message.event, data: message.data });
      },
      onerror(error) {
        throw error; // never retry: an ask is not idempotent
      },
    });
  } catch (error) {
    if (refused) throw refused;
    throw error;
  }
}
