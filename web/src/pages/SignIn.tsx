// Sign-in when the server has authentication on: a user's password (OAuth2 password flow → a
// bearer token) or an API key. Shown with the reason when a request answered 401.

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useLocation, useNavigate } from "react-router";

import { listKnowledgeBases, signIn } from "../api/endpoints";
import { saveCredentials, type Credentials } from "../auth/credentials";
import { ErrorMessage } from "../components/ErrorMessage";
import { useT } from "../i18n/i18n";

export function SignIn() {
  const t = useT();
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();
  const state = (location.state ?? {}) as { from?: string; reason?: string };
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [apiKey, setApiKey] = useState("");

  const done = () => {
    queryClient.clear();
    navigate(state.from && state.from !== "/signin" ? state.from : "/");
  };
  const withPassword = useMutation({
    mutationFn: () => signIn(username, password),
    onSuccess: (token) => {
      saveCredentials({ kind: "token", value: token });
      done();
    },
  });
  const withKey = useMutation({
    mutationFn: async () => {
      const credentials: Credentials = { kind: "key", value: apiKey.trim() };
      saveCredentials(credentials);
      try {
        await listKnowledgeBases(); // a wrong key answers 401 here, not on the next page
      } catch (error) {
        saveCredentials(null);
        throw error;
      }
    },
    onSuccess: done,
  });

  const submitPassword = (event: FormEvent) => {
    event.preventDefault();
    withPassword.mutate();
  };
  const submitKey = (event: FormEvent) => {
    event.preventDefault();
    withKey.mutate();
  };

  return (
    <div className="signin">
      <h1>{t("signin.title")}</h1>
      {state.reason && (
        <div className="error" role="alert">
          {t("error.401")} ({state.reason})
        </div>
      )}
      <div className="row">
        <form onSubmit={submitPassword} className="form card">
          <h2>{t("signin.password")}</h2>
          <label>
            {t("signin.username")}
            <input name="username" autoComplete="username" value={username}
              onChange={(e) => setUsername(e.target.value)} />
          </label>
          <label>
            {t("signin.passwordField")}
            <input name="password" type="password" autoComplete="current-password" value={password}
              onChange={(e) => setPassword(e.target.value)} />
          </label>
          <ErrorMessage error={withPassword.error} />
          <button type="submit" className="primary" disabled={!username || !password}>
            {t("signin.submit")}
          </button>
        </form>
        <form onSubmit={submitKey} className="form card">
          <h2>{t("signin.apiKey")}</h2>
          <label>
            {t("signin.apiKey")}
            <input name="api_key" value={apiKey} placeholder="prk_…"
              onChange={(e) => setApiKey(e.target.value)} />
          </label>
          <ErrorMessage error={withKey.error} />
          <button type="submit" className="primary" disabled={!apiKey.trim()}>
            {t("signin.useKey")}
          </button>
        </form>
      </div>
    </div>
  );
}
