// A failed request shown plainly in the user's language: 401 and 403 get their own sentence,
// then the server's error by its code (its own words for a code the console does not know).

import { ApiError } from "../api/client";
import { useServerText, useT } from "../i18n/i18n";

export function ErrorMessage({ error }: { error: unknown }) {
  const t = useT();
  const serverText = useServerText();
  if (!error) return null;
  let text: string;
  let detail: string | null = null;
  let code: string | undefined;
  if (error instanceof ApiError) {
    const lead = error.status === 401 ? t("error.401") : error.status === 403 ? t("error.403") : "";
    const rendered = serverText({ code: error.code, params: error.params, text: error.message });
    text = [lead, `${rendered.text} (${error.status} ${error.code})`].filter(Boolean).join(" ");
    detail = rendered.detail;
    code = error.code;
  } else if (error instanceof TypeError) {
    text = t("error.network");
  } else {
    text = error instanceof Error ? error.message : String(error);
  }
  return (
    <div className="error" role="alert" data-code={code}>
      {text}
      {detail && <div className="small muted" data-testid="error-detail">{detail}</div>}
    </div>
  );
}
