// A failed request shown plainly: 401 and 403 get their own sentence, then the server's message.

import { ApiError } from "../api/client";
import { useT } from "../i18n/i18n";

export function ErrorMessage({ error }: { error: unknown }) {
  const t = useT();
  if (!error) return null;
  let text: string;
  if (error instanceof ApiError) {
    const lead = error.status === 401 ? t("error.401") : error.status === 403 ? t("error.403") : "";
    text = [lead, `${error.message} (${error.status} ${error.code})`].filter(Boolean).join(" ");
  } else if (error instanceof TypeError) {
    text = t("error.network");
  } else {
    text = error instanceof Error ? error.message : String(error);
  }
  return (
    <div className="error" role="alert">
      {text}
    </div>
  );
}
