// What the server says, in the user's language. The server sends a stable code with its
// parameters beside an English text (planrag/core/messages.py, core/errors.py): an error's
// `{error: {code, message, details}}`, an SSE `error` event's `{code, message, params}`, a
// document's `progress_detail` / `error_detail`. A code below is shown in Korean or English,
// filled in from the parameters; a parse error's `reason` picks a more precise text. A code
// not listed here, or one whose parameters are missing, shows the server's own text.

import type { Lang } from "./i18n";

export type Params = Record<string, string | number>;

export interface ServerMessage {
  code: string;
  params?: Params | null;
  text: string;
}

type Texts = Record<string, string>;

const ko: Texts = {
  // indexing progress
  chunks_embedded: "청크 임베딩 {done}/{total}",
  graph_extracting: "그래프: 청크 {done}/{total}개에서 추출 중 ({extractor})",
  graph_writing: "그래프: 엔티티 언급 {mentions}개 저장 중",
  graph_skipped: "그래프 없이 인덱싱됨",
  indexing_abandoned:
    "인덱싱을 {attempts}번 시작했지만 끝나지 않았습니다 (워커가 매번 멈췄습니다). 파일을 다시 올려 주세요.",
  // errors
  knowledge_base_not_found: "지식 베이스 '{kb}'을(를) 찾을 수 없습니다.",
  document_not_found: "문서 '{doc_id}'을(를) 찾을 수 없습니다.",
  knowledge_base_exists: "'{name}' 이름의 지식 베이스가 이미 있습니다.",
  empty_upload: "'{filename}' 파일이 비어 있습니다.",
  upload_too_large: "'{filename}' 파일이 업로드 한도보다 큽니다.",
  unsupported_file_type: "'{filename}'은(는) 지원하지 않는 파일 형식입니다.",
  parse_error: "파일을 읽을 수 없습니다.",
  "parse_error.empty": "문서에 내용이 없습니다.",
  "parse_error.encoding": "텍스트 인코딩을 알 수 없습니다 (UTF-8, CP949/EUC-KR이 아닙니다).",
  "parse_error.binary": "텍스트 파일이 아닙니다 (내용이 바이너리입니다).",
  "parse_error.not_pdf": "올바른 PDF가 아닙니다 (%PDF 헤더가 없습니다).",
  "parse_error.pdf_no_text": "PDF에 추출할 텍스트가 없습니다 (스캔한 이미지인가요?).",
  "parse_error.pdf_damaged": "PDF가 손상되었거나 잘렸습니다.",
  "parse_error.pdf_encrypted": "암호로 보호된 PDF입니다.",
  "parse_error.file_missing": "올린 파일이 데이터 폴더에 없습니다. 다시 올려 주세요.",
  "parse_error.no_chunks": "문서에서 청크를 하나도 만들지 못했습니다.",
  validation_error: "입력값이 올바르지 않습니다.",
  invalid_input: "잘못된 요청입니다.",
  not_found: "찾을 수 없습니다.",
  conflict: "다른 작업과 충돌했습니다.",
  forbidden: "이 지식 베이스에 대한 권한이 없습니다.",
  embedding_mismatch: "임베딩 모델이나 차원이 지식 베이스와 다릅니다.",
  invalid_embedding: "이 벡터는 사용할 수 없습니다.",
  not_available: "이 서버에서는 사용할 수 없는 기능입니다.",
  model_unavailable: "모델을 불러올 수 없습니다.",
  store_unavailable: "저장소에 연결할 수 없습니다.",
  llm_unavailable: "LLM을 사용할 수 없습니다.",
  internal_error: "서버 내부 오류입니다. 서버 로그를 확인하세요.",
};

const en: Texts = {
  chunks_embedded: "chunks embedded {done}/{total}",
  graph_extracting: "graph: extracting {done}/{total} chunks ({extractor})",
  graph_writing: "graph: writing {mentions} entity mentions",
  graph_skipped: "indexed without graph",
  indexing_abandoned:
    "Indexing was started {attempts} times and never finished (the worker stopped each time); upload the file again.",
  knowledge_base_not_found: "Knowledge base '{kb}' not found.",
  document_not_found: "Document '{doc_id}' not found.",
  knowledge_base_exists: "A knowledge base named '{name}' exists.",
  empty_upload: "'{filename}' is empty.",
  upload_too_large: "'{filename}' is larger than the upload limit.",
  unsupported_file_type: "'{filename}' is not a supported file type.",
  parse_error: "The file cannot be read.",
  "parse_error.empty": "The document is empty.",
  "parse_error.encoding": "Unknown text encoding (not UTF-8, CP949/EUC-KR).",
  "parse_error.binary": "Not a text file: the content is binary.",
  "parse_error.not_pdf": "Not a valid PDF: the %PDF header is missing.",
  "parse_error.pdf_no_text": "The PDF has no extractable text (a scanned image?).",
  "parse_error.pdf_damaged": "The PDF is damaged or truncated.",
  "parse_error.pdf_encrypted": "The PDF is password protected.",
  "parse_error.file_missing": "The uploaded file is missing from the data dir; upload it again.",
  "parse_error.no_chunks": "The document produced no chunks.",
  validation_error: "Invalid input.",
  invalid_input: "Invalid request.",
  not_found: "Not found.",
  conflict: "Conflicts with another change.",
  forbidden: "You may not use this knowledge base.",
  embedding_mismatch: "The embedding model or dimension differs from the knowledge base's.",
  invalid_embedding: "This vector cannot be used.",
  not_available: "Not available on this server.",
  model_unavailable: "A model cannot be loaded.",
  store_unavailable: "A store cannot be reached.",
  llm_unavailable: "The LLM is not available.",
  internal_error: "Internal server error; see the server log.",
};

export const serverTexts: Record<Lang, Texts> = { ko, en };

export interface Rendered {
  /** The message in the user's language, or the server's text for an unknown code. */
  text: string;
  /** The server's own words when the translation is a general sentence (shown smaller). */
  detail: string | null;
  known: boolean;
}

const PLACEHOLDER = /\{(\w+)\}/g;

export function renderServerMessage(lang: Lang, message: ServerMessage): Rendered {
  const texts = serverTexts[lang];
  const params = message.params ?? {};
  const reason = typeof params.reason === "string" ? `${message.code}.${params.reason}` : null;
  const template = (reason && texts[reason]) || texts[message.code];
  if (!template) return { text: message.text, detail: null, known: false };
  const names = [...template.matchAll(PLACEHOLDER)].map((m) => m[1]);
  if (names.some((name) => params[name] === undefined || params[name] === "")) {
    return { text: message.text, detail: null, known: false };
  }
  const text = template.replace(PLACEHOLDER, (_, name: string) => String(params[name]));
  const general = names.length === 0 && !(reason && texts[reason]);
  return { text, detail: general && message.text && message.text !== text ? message.text : null, known: true };
}
