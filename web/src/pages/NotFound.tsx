// An address the console has no page for: our own page inside the frame (with the navigation),
// not React Router's developer error screen.

import { Link, useLocation } from "react-router";

import { useT } from "../i18n/i18n";

export function NotFound() {
  const t = useT();
  const { pathname } = useLocation();
  return (
    <section className="not-found" data-testid="not-found">
      <h1>{t("notFound.title")}</h1>
      <p>{t("notFound.body", { path: pathname })}</p>
      <p>
        <Link to="/">{t("notFound.home")}</Link>
      </p>
    </section>
  );
}
