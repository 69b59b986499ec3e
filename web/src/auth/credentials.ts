// The caller's credentials (API key or bearer token), kept in localStorage so a reload keeps
// the session. Only the API client reads them; the sign-in page writes them.

export type Credentials = { kind: "key"; value: string } | { kind: "token"; value: string };

const STORAGE_KEY = "planrag.credentials";
const listeners = new Set<() => void>();

export function loadCredentials(): Credentials | null {
  try {
    const raw = localStorage.getItem(STORAGE_KEY);
    return raw ? (JSON.parse(raw) as Credentials) : null;
  } catch {
    return null;
  }
}

export function saveCredentials(credentials: Credentials | null): void {
  if (credentials) localStorage.setItem(STORAGE_KEY, JSON.stringify(credentials));
  else localStorage.removeItem(STORAGE_KEY);
  listeners.forEach((listener) => listener());
}

export function onCredentialsChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function authHeaders(credentials = loadCredentials()): Record<string, string> {
  if (!credentials) return {};
  return credentials.kind === "key"
    ? { "X-API-Key": credentials.value }
    : { Authorization: `Bearer ${credentials.value}` };
}
