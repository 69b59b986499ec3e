// The language switch: Korean by default, English on request, remembered in localStorage.

import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from "react";

import { formatDate } from "../components/format";
import { en, ko, type MessageKey } from "./messages";
import { renderServerMessage, type Rendered, type ServerMessage } from "./serverMessages";

export type Lang = "ko" | "en";
type Translate = (key: MessageKey, vars?: Record<string, string | number>) => string;

const STORAGE_KEY = "planrag.lang";
const dictionaries: Record<Lang, Record<MessageKey, string>> = { ko, en };

export function translate(lang: Lang, key: MessageKey, vars?: Record<string, string | number>) {
  const text = dictionaries[lang][key] ?? key;
  return vars ? text.replace(/\{(\w+)\}/g, (_, name: string) => String(vars[name] ?? "")) : text;
}

const I18nContext = createContext<{ lang: Lang; setLang: (lang: Lang) => void; t: Translate }>({
  lang: "ko",
  setLang: () => {},
  t: (key, vars) => translate("ko", key, vars),
});

function initialLang(): Lang {
  try {
    return localStorage.getItem(STORAGE_KEY) === "en" ? "en" : "ko";
  } catch {
    return "ko";
  }
}

export function I18nProvider({ children }: { children: ReactNode }) {
  const [lang, setLangState] = useState<Lang>(initialLang);
  const setLang = useCallback((next: Lang) => {
    localStorage.setItem(STORAGE_KEY, next);
    document.documentElement.lang = next;
    setLangState(next);
  }, []);
  const value = useMemo(
    () => ({ lang, setLang, t: ((key, vars) => translate(lang, key, vars)) as Translate }),
    [lang, setLang],
  );
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export const useI18n = () => useContext(I18nContext);
export const useT = () => useContext(I18nContext).t;

/** Renders what the server said (a code and parameters) in the user's language. */
export function useServerText(): (message: ServerMessage) => Rendered {
  const { lang } = useContext(I18nContext);
  return useCallback((message: ServerMessage) => renderServerMessage(lang, message), [lang]);
}

/** Formats a server timestamp in the user's language and time zone (Asia/Seoul by default). */
export function useFormatDate(): (iso: string | null | undefined) => string {
  const { lang } = useContext(I18nContext);
  return useCallback((iso: string | null | undefined) => formatDate(iso, lang), [lang]);
}
