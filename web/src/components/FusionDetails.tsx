// How hybrid search weighted its legs for a hit: the weights used, the KB's calibrated weight,
// the calibration's confidence, real asks' feedback and why (the playground's hit cards and an
// ask's trace show the same block).

import type { FusionInfo } from "../api/types";
import { useT } from "../i18n/i18n";

function present<T>(value: T | null | undefined): value is T {
  return value !== null && value !== undefined;
}

export function FusionDetails({ fusion }: { fusion: FusionInfo }) {
  const t = useT();
  return (
    <div data-testid="fusion">
      {t("test.fusion")}: {fusion.mode} · dense {fusion.dense_weight} · lexical{" "}
      {fusion.lexical_weight}
      {present(fusion.calibrated_dense_weight) && (
        <span data-testid="fusion-calibrated">
          {` (${t("test.calibrated")} ${fusion.calibrated_dense_weight})`}
        </span>
      )}
      {present(fusion.confidence) ? ` · ${t("test.confidence")} ${fusion.confidence}` : ""}
      {present(fusion.feedback_asks) && (
        <span data-testid="fusion-feedback">
          {` · ${t("test.feedback", { count: fusion.feedback_asks })}`}
          {present(fusion.feedback_confidence)
            ? ` (${t("test.confidence")} ${fusion.feedback_confidence})`
            : ""}
        </span>
      )}
      {fusion.rrf_k ? ` · RRF k=${fusion.rrf_k}` : ""}
      <div data-testid="fusion-reason">{fusion.reason}</div>
    </div>
  );
}
