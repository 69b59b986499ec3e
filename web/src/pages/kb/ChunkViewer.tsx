// The chunks of one document, in order.

import { useQuery } from "@tanstack/react-query";

import { listChunks } from "../../api/endpoints";
import type { DocumentRow } from "../../api/types";
import { ErrorMessage } from "../../components/ErrorMessage";
import { Modal } from "../../components/Modal";
import { useT } from "../../i18n/i18n";

export function ChunkViewer(props: { kbId: string; doc: DocumentRow; onClose: () => void }) {
  const t = useT();
  const chunks = useQuery({
    queryKey: ["chunks", props.doc.id],
    queryFn: () => listChunks(props.kbId, props.doc.id),
  });
  return (
    <Modal title={t("docs.chunksOf", { name: props.doc.filename })} onClose={props.onClose} wide>
      <ErrorMessage error={chunks.error} />
      {chunks.isPending && <p>{t("common.loading")}</p>}
      <ol className="chunks" data-testid="chunk-list">
        {chunks.data?.map((chunk) => (
          <li key={chunk.id}>
            <div className="muted small">
              #{chunk.position} · {chunk.kind}
              {chunk.page !== null ? ` · p.${chunk.page}` : ""}
            </div>
            <pre className="chunk-text">{chunk.text}</pre>
          </li>
        ))}
      </ol>
    </Modal>
  );
}
