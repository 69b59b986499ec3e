// The frame: header with navigation, language switch and sign-in state; a 401 anywhere sends
// the user to the sign-in page with the reason.

import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { NavLink, Outlet, useLocation, useNavigate } from "react-router";

import { onUnauthorized } from "../api/client";
import { loadCredentials, onCredentialsChange, saveCredentials } from "../auth/credentials";
import { useI18n } from "../i18n/i18n";

export function Layout() {
  const { t, lang, setLang } = useI18n();
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();
  const [signedIn, setSignedIn] = useState(() => loadCredentials() !== null);

  useEffect(() => onCredentialsChange(() => setSignedIn(loadCredentials() !== null)), []);
  useEffect(
    () =>
      onUnauthorized((error) => {
        if (location.pathname !== "/signin") {
          navigate("/signin", { state: { from: location.pathname, reason: error.message } });
        }
      }),
    [navigate, location.pathname],
  );

  const signOut = () => {
    saveCredentials(null);
    queryClient.clear();
    navigate("/signin");
  };

  return (
    <div className="app">
      <header className="topbar">
        <NavLink to="/" className="brand">
          planrag <span className="brand-sub">{t("app.title")}</span>
        </NavLink>
        <nav>
          <NavLink to="/" end>
            {t("nav.dashboard")}
          </NavLink>
          <NavLink to="/ask">{t("nav.ask")}</NavLink>
          <NavLink to="/plan">{t("nav.plan")}</NavLink>
          <NavLink to="/traces">{t("nav.traces")}</NavLink>
        </nav>
        <div className="topbar-right">
          <button
            type="button"
            className="link"
            data-testid="lang-switch"
            onClick={() => setLang(lang === "ko" ? "en" : "ko")}
          >
            {t("lang.switch")}
          </button>
          {signedIn && (
            <button type="button" className="link" onClick={signOut}>
              {t("nav.signOut")}
            </button>
          )}
        </div>
      </header>
      <main className="content">
        <Outlet />
      </main>
    </div>
  );
}
