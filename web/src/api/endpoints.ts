// Every API call the console makes, typed. Paths are the server's public routes.

import { api, json } from "./client";
import type {
  Chunk,
  DocumentRow,
  EntitySources,
  GraphView,
  Hit,
  KnowledgeBase,
  KnowledgeBaseCreate,
  PlanEnvelope,
  RetrieveRequest,
  Trace,
  TraceSummary,
} from "./types";

const kbPath = (kbId: string) => `/api/knowledge-bases/${encodeURIComponent(kbId)}`;

export const listKnowledgeBases = () => api<KnowledgeBase[]>("/api/knowledge-bases");
export const getKnowledgeBase = (kbId: string) => api<KnowledgeBase>(kbPath(kbId));
export const createKnowledgeBase = (body: KnowledgeBaseCreate) =>
  api<KnowledgeBase>("/api/knowledge-bases", { method: "POST", ...json(body) });
export const updateKnowledgeBase = (kbId: string, body: Partial<KnowledgeBase>) =>
  api<KnowledgeBase>(kbPath(kbId), { method: "PATCH", ...json(body) });
export const deleteKnowledgeBase = (kbId: string) =>
  api<void>(kbPath(kbId), { method: "DELETE" });

export const listDocuments = (kbId: string) => api<DocumentRow[]>(`${kbPath(kbId)}/documents`);
export const uploadDocuments = (kbId: string, form: FormData) =>
  api<DocumentRow[]>(`${kbPath(kbId)}/documents`, { method: "POST", body: form });
export const deleteDocument = (kbId: string, docId: string) =>
  api<void>(`${kbPath(kbId)}/documents/${encodeURIComponent(docId)}`, { method: "DELETE" });
export const listChunks = (kbId: string, docId: string) =>
  api<Chunk[]>(`${kbPath(kbId)}/documents/${encodeURIComponent(docId)}/chunks`);

export const retrieve = (kbId: string, body: RetrieveRequest) =>
  api<Hit[]>(`${kbPath(kbId)}/retrieve`, { method: "POST", ...json(body) });

export const planQuestion = (body: { question: string; now?: string; knowledge_bases?: string[] }) =>
  api<PlanEnvelope>("/ai/v2/plan", { method: "POST", ...json(body) });
export const listTraces = (limit = 50, offset = 0) =>
  api<TraceSummary[]>(`/ai/v2/traces?limit=${limit}&offset=${offset}`);
export const getTrace = (traceId: string) =>
  api<Trace>(`/ai/v2/traces/${encodeURIComponent(traceId)}`);

export function getGraph(kbId: string, entity: string | null, hops: number, limit = 100) {
  const query = new URLSearchParams({ hops: String(hops), limit: String(limit) });
  if (entity) query.set("entity", entity);
  return api<GraphView>(`${kbPath(kbId)}/graph?${query}`);
}
export const getEntitySources = (kbId: string, entityId: string) =>
  api<EntitySources>(`${kbPath(kbId)}/graph/entities/${encodeURIComponent(entityId)}/sources`);

export async function signIn(username: string, password: string): Promise<string> {
  const form = new URLSearchParams({ username, password });
  const token = await api<{ access_token: string }>("/token", {
    method: "POST",
    body: form,
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
  return token.access_token;
}
