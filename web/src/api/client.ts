// One fetch wrapper for the JSON API: credentials on every call, the server's error body
// ({"error": {"code", "message"}, "detail"}) turned into an ApiError with its status and code.

import { authHeaders } from "../auth/credentials";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The error's details that fill in its text (strings and numbers), for translation. */
    readonly params: Record<string, string | number> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

function paramsOf(details: unknown): Record<string, string | number> {
  if (!details || typeof details !== "object" || Array.isArray(details)) return {};
  return Object.fromEntries(
    Object.entries(details).filter(([, v]) => typeof v === "string" || typeof v === "number"),
  ) as Record<string, string | number>;
}

const unauthorizedListeners = new Set<(error: ApiError) => void>();

/** Called on every 401, so the app can show the sign-in screen. */
export function onUnauthorized(listener: (error: ApiError) => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

export async function errorFromResponse(response: Response): Promise<ApiError> {
  let code = `http_${response.status}`;
  let message = response.statusText || `HTTP ${response.status}`;
  let params: Record<string, string | number> = {};
  try {
    const body = await response.json();
    if (body?.error?.code) code = String(body.error.code);
    params = paramsOf(body?.error?.details);
    if (body?.error?.message) message = String(body.error.message);
    else if (typeof body?.detail === "string") message = body.detail;
    else if (Array.isArray(body?.detail) && body.detail[0]?.msg) message = body.detail[0].msg;
    else if (body?.message) message = String(body.message);
  } catch {
    // not JSON: keep the status text
  }
  const error = new ApiError(response.status, code, message, params);
  if (response.status === 401) unauthorizedListeners.forEach((listener) => listener(error));
  return error;
}

export async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  const headers: Record<string, string> = { ...authHeaders(), Accept: "application/json" };
  if (init.body && !(init.body instanceof FormData)) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    ...init,
    headers: { ...headers, ...(init.headers as Record<string, string>) },
  });
  if (!response.ok) throw await errorFromResponse(response);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

export const json = (body: unknown): RequestInit => ({ body: JSON.stringify(body) });
