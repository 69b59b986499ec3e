// Knowledge-base detail: a sidebar (문서 / 설정 / 테스트 / 그래프) and the selected tab.

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link, NavLink, Outlet, useNavigate, useParams } from "react-router";

import { deleteKnowledgeBase, getKnowledgeBase } from "../../api/endpoints";
import type { KnowledgeBase } from "../../api/types";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { ErrorMessage } from "../../components/ErrorMessage";
import { useT } from "../../i18n/i18n";

export interface KbContext {
  kb: KnowledgeBase;
}

export function useKb(kbId: string) {
  return useQuery({ queryKey: ["kb", kbId], queryFn: () => getKnowledgeBase(kbId) });
}

export function KbLayout() {
  const t = useT();
  const { kbId = "" } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const kb = useKb(kbId);
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => deleteKnowledgeBase(kbId),
    onSuccess: () => {
      queryClient.invalidateQueries({ queryKey: ["kbs"] });
      navigate("/");
    },
  });

  if (kb.error) return <ErrorMessage error={kb.error} />;
  if (!kb.data) return <p>{t("common.loading")}</p>;
  return (
    <div className="kb-detail">
      <aside className="sidebar">
        <Link to="/" className="muted">
          {t("kb.back")}
        </Link>
        <h1 data-testid="kb-name">{kb.data.name}</h1>
        <nav>
          <NavLink to="" end>
            {t("kb.documents")}
          </NavLink>
          <NavLink to="settings">{t("kb.settings")}</NavLink>
          <NavLink to="test">{t("kb.test")}</NavLink>
          <NavLink to="graph">{t("kb.graph")}</NavLink>
        </nav>
        <button type="button" className="danger small" onClick={() => setConfirming(true)}>
          {t("kb.deleteKb")}
        </button>
        <ErrorMessage error={remove.error} />
      </aside>
      <section className="kb-main">
        <Outlet context={{ kb: kb.data } satisfies KbContext} />
      </section>
      {confirming && (
        <ConfirmDialog
          message={t("kb.deleteKbConfirm", { name: kb.data.name })}
          onConfirm={() => {
            setConfirming(false);
            remove.mutate();
          }}
          onCancel={() => setConfirming(false)}
        />
      )}
    </div>
  );
}
