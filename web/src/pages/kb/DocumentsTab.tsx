// 문서: upload (drag and drop or picker, several files, optional metadata), a table whose status
// moves live while anything is indexing, a chunk viewer, delete with confirmation.

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useOutletContext } from "react-router";

import { deleteDocument, listDocuments } from "../../api/endpoints";
import type { DocumentRow } from "../../api/types";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { ErrorMessage } from "../../components/ErrorMessage";
import { formatBytes } from "../../components/format";
import { useFormatDate, useServerText, useT } from "../../i18n/i18n";
import { ChunkViewer } from "./ChunkViewer";
import type { KbContext } from "./KbLayout";
import { UploadZone } from "./UploadZone";

const busy = (docs: DocumentRow[] | undefined) =>
  (docs ?? []).some((d) => d.status === "pending" || d.status === "processing");

export function DocumentsTab() {
  const t = useT();
  const formatDate = useFormatDate();
  const { kb } = useOutletContext<KbContext>();
  const queryClient = useQueryClient();
  const [viewing, setViewing] = useState<DocumentRow | null>(null);
  const [deleting, setDeleting] = useState<DocumentRow | null>(null);
  const docs = useQuery({
    queryKey: ["docs", kb.id],
    queryFn: () => listDocuments(kb.id),
    // Live status: poll while a document is pending or processing.
    refetchInterval: (query) => (busy(query.state.data) ? 1000 : false),
  });
  const wasBusy = busy(docs.data);
  const remove = useMutation({
    mutationFn: (doc: DocumentRow) => deleteDocument(kb.id, doc.id),
    onSuccess: () => refresh(),
  });
  const refresh = () => {
    queryClient.invalidateQueries({ queryKey: ["docs", kb.id] });
    queryClient.invalidateQueries({ queryKey: ["kb", kb.id] });
    queryClient.invalidateQueries({ queryKey: ["kbs"] });
  };

  return (
    <div>
      <h2>{t("kb.documents")}</h2>
      <UploadZone kbId={kb.id} onUploaded={refresh} />
      <ErrorMessage error={docs.error ?? remove.error} />
      <table className="table" data-testid="documents-table" data-busy={wasBusy}>
        <thead>
          <tr>
            <th>{t("docs.name")}</th>
            <th>{t("docs.status")}</th>
            <th>{t("docs.chunks")}</th>
            <th>{t("dash.size")}</th>
            <th>{t("docs.created")}</th>
            <th>{t("docs.actions")}</th>
          </tr>
        </thead>
        <tbody>
          {docs.data?.map((doc) => (
            <tr key={doc.id} data-testid="document-row" data-filename={doc.filename}
              data-status={doc.status}>
              <td>
                {doc.filename}
                {doc.metadata.title && <div className="muted small">{doc.metadata.title}</div>}
              </td>
              <td>
                <StatusBadge doc={doc} />
              </td>
              <td>{doc.chunk_count}</td>
              <td>{formatBytes(doc.size)}</td>
              <td>{formatDate(doc.created_at)}</td>
              <td>
                <div className="actions-cell">
                <button type="button" className="small" onClick={() => setViewing(doc)}
                  disabled={doc.status !== "completed"}>
                  {t("docs.viewChunks")}
                </button>
                <button type="button" className="small danger" onClick={() => setDeleting(doc)}>
                  {t("common.delete")}
                </button>
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {docs.data?.length === 0 && <p className="muted">{t("docs.empty")}</p>}
      {viewing && <ChunkViewer kbId={kb.id} doc={viewing} onClose={() => setViewing(null)} />}
      {deleting && (
        <ConfirmDialog
          message={t("docs.deleteConfirm", { name: deleting.filename })}
          onCancel={() => setDeleting(null)}
          onConfirm={() => {
            remove.mutate(deleting);
            setDeleting(null);
          }}
        />
      )}
    </div>
  );
}

function StatusBadge({ doc }: { doc: DocumentRow }) {
  const t = useT();
  const serverText = useServerText();
  // The server's code and parameters in the user's language; its own text for older rows.
  const error = doc.error ? serverText(doc.error_detail ?? { code: "", text: doc.error }) : null;
  const progress = doc.progress
    ? serverText(doc.progress_detail ?? { code: "", text: doc.progress })
    : null;
  return (
    <span>
      <span className={`badge ${doc.status}`} data-testid="doc-status">
        {t(`status.${doc.status}`)}
      </span>
      {doc.status === "error" && error && (
        <div className="error-text small" data-testid="doc-error" title={doc.error ?? undefined}>
          {error.text}
          {error.detail && <div className="muted">{error.detail}</div>}
        </div>
      )}
      {progress && (
        <div className="muted small" data-testid="doc-progress" title={doc.progress ?? undefined}>
          {progress.text}
          {progress.detail && <div>{progress.detail}</div>}
        </div>
      )}
    </span>
  );
}
