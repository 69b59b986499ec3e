// "Are you sure?" before anything destructive.

import { useT } from "../i18n/i18n";
import { Modal } from "./Modal";

export function ConfirmDialog(props: { message: string; onConfirm: () => void; onCancel: () => void }) {
  const t = useT();
  return (
    <Modal title={t("common.delete")} onClose={props.onCancel}>
      <p>{props.message}</p>
      <div className="actions">
        <button type="button" onClick={props.onCancel}>
          {t("common.cancel")}
        </button>
        <button type="button" className="danger" data-testid="confirm-delete" onClick={props.onConfirm}>
          {t("common.delete")}
        </button>
      </div>
    </Modal>
  );
}
