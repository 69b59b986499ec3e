// Drag-and-drop or file-picker upload of several files with optional metadata.

import { useMutation } from "@tanstack/react-query";
import { useRef, useState, type DragEvent, type FormEvent } from "react";

import { uploadDocuments } from "../../api/endpoints";
import { ErrorMessage } from "../../components/ErrorMessage";
import { useT } from "../../i18n/i18n";

const FIELDS = ["title", "author", "date", "tags"] as const;

// What the server parses (planrag/ingest/parsers.py, docs/formats.md).
const ACCEPTED = ".txt,.text,.md,.markdown,.pdf,.docx,.hwpx,.hwp,.html,.htm,.csv";

export function UploadZone(props: { kbId: string; onUploaded: () => void }) {
  const t = useT();
  const input = useRef<HTMLInputElement>(null);
  const [files, setFiles] = useState<File[]>([]);
  const [over, setOver] = useState(false);
  const [meta, setMeta] = useState<Record<(typeof FIELDS)[number], string>>({
    title: "",
    author: "",
    date: "",
    tags: "",
  });
  const [done, setDone] = useState<number | null>(null);

  const upload = useMutation({
    mutationFn: () => {
      const form = new FormData();
      files.forEach((file) => form.append("files", file, file.name));
      FIELDS.forEach((field) => meta[field].trim() && form.append(field, meta[field].trim()));
      return uploadDocuments(props.kbId, form);
    },
    onSuccess: (docs) => {
      setDone(docs.length);
      setFiles([]);
      if (input.current) input.current.value = "";
      props.onUploaded();
    },
  });

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    setDone(null);
    setFiles((current) => [...current, ...Array.from(event.dataTransfer.files)]);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (files.length) upload.mutate();
  };

  return (
    <form className="upload" onSubmit={submit}>
      <div
        className={over ? "dropzone over" : "dropzone"}
        data-testid="dropzone"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
        onClick={() => input.current?.click()}
      >
        {t("docs.drop")}
        <input
          ref={input}
          type="file"
          multiple
          hidden
          accept={ACCEPTED}
          data-testid="file-input"
          onChange={(e) => {
            setDone(null);
            setFiles(Array.from(e.target.files ?? []));
          }}
        />
      </div>
      {files.length > 0 && (
        <>
          <p>
            {t("docs.selected", { count: files.length })}: {files.map((f) => f.name).join(", ")}
          </p>
          <details>
            <summary>{t("docs.metadata")}</summary>
            <div className="row">
              {FIELDS.map((field) => (
                <label key={field}>
                  {t(`docs.${field}`)}
                  <input
                    name={field}
                    type={field === "date" ? "date" : "text"}
                    value={meta[field]}
                    onChange={(e) => setMeta({ ...meta, [field]: e.target.value })}
                  />
                </label>
              ))}
            </div>
          </details>
          <button type="submit" className="primary" disabled={upload.isPending}>
            {upload.isPending ? t("docs.uploading") : t("docs.upload")}
          </button>
        </>
      )}
      {done !== null && <p className="ok">{t("docs.uploaded", { count: done })}</p>}
      <ErrorMessage error={upload.error} />
    </form>
  );
}
