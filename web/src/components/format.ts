// Small display helpers shared by the pages.

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The time zone dates are shown in: Asia/Seoul unless the browser stored another
 *  (localStorage `planrag.timeZone`, an IANA name). */
export const DEFAULT_TIME_ZONE = "Asia/Seoul";

export function displayTimeZone(): string {
  try {
    const stored = localStorage.getItem("planrag.timeZone");
    if (stored) {
      new Intl.DateTimeFormat("en", { timeZone: stored }); // throws on an unknown zone
      return stored;
    }
  } catch {
    // no storage, or an unknown zone: the default
  }
  return DEFAULT_TIME_ZONE;
}

/** A server timestamp in the user's language (ko-KR or en-US) and time zone. */
export function formatDate(
  iso: string | null | undefined,
  lang: "ko" | "en" = "ko",
  timeZone: string = displayTimeZone(),
): string {
  if (!iso) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return new Intl.DateTimeFormat(lang === "ko" ? "ko-KR" : "en-US", {
    dateStyle: "medium",
    timeStyle: "short",
    timeZone,
  }).format(date);
}

export const formatScore = (score: number | null | undefined) =>
  score === null || score === undefined ? "—" : score.toFixed(3);
