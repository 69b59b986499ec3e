// A modal dialog: Escape or the backdrop closes it.

import { useEffect, type ReactNode } from "react";

import { useT } from "../i18n/i18n";

export function Modal(props: { title: string; onClose: () => void; children: ReactNode; wide?: boolean }) {
  const t = useT();
  const { onClose } = props;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => event.key === "Escape" && onClose();
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);
  return (
    <div className="backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className={props.wide ? "modal wide" : "modal"} role="dialog" aria-modal="true"
        aria-label={props.title}>
        <div className="modal-head">
          <h2>{props.title}</h2>
          <button type="button" className="link" aria-label={t("common.close")} onClick={onClose}>
            ✕
          </button>
        </div>
        {props.children}
      </div>
    </div>
  );
}
