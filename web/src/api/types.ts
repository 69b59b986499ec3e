// Shapes of the public HTTP API the console reads (planrag/core/types.py, services/*, stores/traces).

import type { ServerMessage } from "../i18n/serverMessages";

export type DocumentStatus = "pending" | "processing" | "completed" | "error";
export type Strategy = "ann" | "keyword" | "bm25" | "hybrid" | "2-stage";

export interface ChunkingConfig {
  strategy: "size" | "parent_child" | "context_aware";
  unit: "chars" | "tokens";
  chunk_size: number;
  chunk_overlap: number;
  parent_size: number;
  child_size: number;
}

export interface GraphSummary {
  backend: string;
  entities: number;
  relations: number;
  error?: string | null;
}

export interface KnowledgeBase {
  id: string;
  name: string;
  description: string;
  top_k: number;
  score_threshold: number;
  metric: "COSINE" | "L2" | "IP";
  chunking: ChunkingConfig;
  embedding_model: string;
  embedding_dim: number;
  graph_backend: string;
  user_words: string[];
  vector_store: string;
  created_at: string;
  updated_at: string;
  stats: {
    document_count: number;
    chunk_count: number;
    size_bytes: number;
    last_updated: string | null;
  };
  graph?: GraphSummary | null;
}

export interface KnowledgeBaseCreate {
  name: string;
  description?: string;
  metric?: string;
  chunking?: Partial<ChunkingConfig>;
  graph_backend?: string;
  vector_store?: string;
}

export interface DocumentMetadata {
  title?: string | null;
  author?: string | null;
  domain?: string | null;
  date?: string | null;
  tags?: string[];
}

export interface DocumentRow {
  id: string;
  kb_id: string;
  filename: string;
  file_type: string;
  status: DocumentStatus;
  error: string | null;
  size: number;
  chunk_count: number;
  metadata: DocumentMetadata;
  created_at: string;
  updated_at: string;
  duplicate?: boolean;
  /** What indexing is doing ("graph: extracting 12/40 chunks"), or a note on it. */
  progress?: string | null;
  /** `progress` and `error` as a code and parameters, rendered in the user's language. */
  progress_detail?: ServerMessage | null;
  error_detail?: ServerMessage | null;
}

export interface Chunk {
  id: string;
  doc_id: string;
  position: number;
  text: string;
  kind: string;
  parent_id: string | null;
  page: number | null;
}

export interface FusionInfo {
  mode: string;
  dense_weight: number;
  lexical_weight: number;
  reason: string;
  rrf_k: number | null;
  dense_base?: number | null;
  dense_top?: number | null;
  confidence?: number | null;
  query_script?: string | null;
  // the KB's calibrated dense weight when this query's was matched to its legs' spreads
  calibrated_dense_weight?: number | null;
  // answered asks whose cited passages' leg ranks were blended in, and how far they moved it
  feedback_asks?: number | null;
  feedback_confidence?: number | null;
}

export interface Hit {
  chunk_id: string;
  doc_id: string;
  content: string;
  score: number;
  metadata: {
    filename?: string | null;
    title?: string | null;
    author?: string | null;
    date?: string | null;
    page?: number | null;
    dense_score?: number | null;
    lexical_score?: number | null;
    dense_rank?: number | null;
    lexical_rank?: number | null;
    rerank_score?: number | null;
    title_score?: number | null;
    l2_distance?: number | null;
    fusion?: FusionInfo | null;
    graph_score?: number | null;
    graph_entities?: string[] | null;
    [key: string]: unknown;
  };
  graph_metadata?: GraphMetadata | null;
}

export interface GraphMetadata {
  backend: string;
  extracted_entities: string[];
  matched_entities: { query: string; entity: string; exact: boolean }[];
  expanded_entities: string[];
  triples: {
    source: string;
    type: string;
    target: string;
    sentence?: string;
    extracted_by?: string;
    documents?: string[];
  }[];
  queries: { language: string; text: string; params: Record<string, unknown> }[];
  analysis: { multi_hop: boolean; pattern: string | null; relation_hints: string[]; hops: number };
  graph_chunks: number;
  fallback: boolean;
  fallback_reason: string | null;
}

export interface RetrieveRequest {
  query: string;
  top_k?: number;
  score_threshold?: number;
  strategy: Strategy;
  hybrid_mode?: "sequential" | "parallel";
  use_reranker?: boolean;
  use_ner_filter?: boolean;
  use_brute_force?: boolean;
  enable_graph_search?: boolean;
  graph_hops?: number;
  filters?: {
    authors?: string[];
    date_from?: string;
    date_to?: string;
    title_contains?: string;
  };
}

export interface TimeFilter {
  from: string | null;
  to: string | null;
  expression: string | null;
}

export interface SearchPlan {
  version: number;
  mode: "rag" | "direct" | "document";
  strategy: Strategy;
  knowledge_bases: string[];
  query: string | null;
  top_k: number;
  threshold: number | null;
  hybrid_mode: string;
  rerank: { enabled: boolean; top_k: number; threshold: number };
  graph: { enabled: boolean; hops: number };
  filters: {
    time: TimeFilter | null;
    authors: string[];
    domains: string[];
    doc_ids: string[];
    title_contains: string | null;
    tags: string[];
  };
  sort: "relevance" | "newest" | "oldest";
  limit: number | null;
  rationale: string;
  /** A multi-step plan (version 2): each step a search whose query may name {{sN.answer}}. */
  steps?: PlanStep[];
  answer_from?: string | null;
}

export interface PlanStep {
  id: string;
  query: string;
  strategy: Strategy | null;
  top_k: number | null;
}

/** One step as run: the `step` event of an ask, and the trace's record of it. */
export interface StepRecord {
  id: string;
  /** The query searched, earlier answers filled in. */
  query: string;
  /** The query as planned, with its {{sN.answer}}. */
  planned: string;
  plan: { strategy: Strategy; top_k: number };
  hits: PassageRef[];
  answer: { text: string; sentence: string; passage: number; source: string } | null;
  status: string;
  reason: string | null;
  adaptive: boolean;
  /** The answer type the step's query asks for (PERSON, ORGANIZATION, PLACE, DATE …). */
  expected_type?: string | null;
}

export interface PlanEnvelope {
  plan: SearchPlan;
  source: "llm" | "heuristic" | "fallback" | "fixed";
  fallback_reason: string | null;
  raw?: unknown;
  errors: unknown[];
  timings_ms: Record<string, number>;
  relaxed: {
    dropped: Partial<SearchPlan["filters"]>;
    /** Each filter dropped and how many documents were left after it. */
    steps?: { filter: string; value: string; documents: number }[];
    reason: string;
  } | null;
  now?: string;
  /** A follow-up in a conversation: the question as asked and the standalone one planned. */
  followup?: FollowUp | null;
}

export interface FollowUp {
  question: string;
  standalone: string;
  knowledge_bases: string[];
  doc_id: string | null;
  carried: string[];
  source: "none" | "rules" | "llm" | "fallback";
  reason: string | null;
}

export interface PassageRef {
  n: number;
  chunk_id: string;
  doc_id: string;
  knowledge_base: string;
  title: string | null;
  date?: string | null;
  score?: number;
}

export interface Passage extends PassageRef {
  content: string;
}

export interface TraceSummary {
  id: string;
  created_at: string;
  question: string;
  knowledge_bases: string[];
  source: string;
  status: string;
}

export interface Trace extends TraceSummary {
  principal: string;
  data: {
    envelope?: PlanEnvelope;
    timings_ms?: Record<string, number>;
    stages?: Record<string, unknown>;
    hits?: PassageRef[];
    answer?: string;
    answer_source?: string;
    citations?: PassageRef[];
    steps?: StepRecord[];
    error?: unknown;
    [key: string]: unknown;
  };
}

export interface GraphNode {
  id: string;
  name: string;
  type: string;
  sources: number;
}

/** A relation, with where it was read (spec 001's provenance; "" when none was kept). */
export interface GraphEdge {
  source: string;
  target: string;
  type: string;
  sentence: string;
  extracted_by: string;
  documents: string[];
}

export interface GraphView {
  kb_id: string;
  center: string | null;
  nodes: GraphNode[];
  edges: GraphEdge[];
  truncated: boolean;
}

export interface EntitySources {
  entity: { id: string; name: string; type: string };
  sources: { chunk_id: string; document_id: string; document_name: string; text: string }[];
}
