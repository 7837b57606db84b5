/**
 * An asset input in the inspector: pick one of the user's assets of the right kind, or upload a file
 * (saved as a new asset, the person's own act). The node keeps the asset's id; an image shows as a
 * thumbnail. `compact` (a run input beside Run workflow): its own id and name, no thumbnail.
 */
import { useCallback, useEffect, useState } from "react";
import { AssetView } from "../panel/ValueView.tsx";
import type { FieldProps } from "./fields.tsx";

interface AssetSummary {
  id: string;
  name: string;
  content_type: string;
}

const PREFIX: Record<string, string | undefined> = { image: "image/", audio: "audio/", file: undefined };

export function AssetField({
  spec,
  value,
  onChange,
  onDone,
  calls,
  compact,
}: FieldProps & { compact?: { id: string; label: string } | undefined }) {
  const [assets, setAssets] = useState<AssetSummary[]>([]);
  const [problem, setProblem] = useState<string | undefined>();
  const prefix = PREFIX[spec.type];
  const load = useCallback(async () => {
    const listed = await calls.invoke("assets", "list", [{ limit: 200, ...(prefix ? { content_type: prefix } : {}) }]);
    if (listed.ok) setAssets((listed.value as { assets: AssetSummary[] }).assets);
    else setProblem(listed.error.message);
  }, [calls, prefix]);
  useEffect(() => {
    void load();
  }, [load]);
  const id = typeof value === "string" ? value : undefined;
  return (
    <div className="asset-field">
      <select
        id={compact?.id ?? `field-${spec.name}`}
        aria-label={compact?.label}
        value={id ?? ""}
        onChange={(event) => {
          onChange(event.target.value || undefined);
          onDone();
        }}
      >
        <option value="">(none)</option>
        {id && !assets.some((a) => a.id === id) ? <option value={id}>{id}</option> : null}
        {assets.map((asset) => (
          <option key={asset.id} value={asset.id}>
            {asset.name} ({asset.content_type})
          </option>
        ))}
      </select>
      <label className="upload" aria-label={compact ? `Upload ${spec.type} for ${spec.name}` : undefined}>
        {compact ? "Upload" : `Upload ${spec.type}`}
        <input
          type="file"
          accept={prefix ? `${prefix}*` : undefined}
          onChange={async (event) => {
            const file = event.target.files?.[0];
            if (!file) return;
            const saved = await calls.saveFile(file);
            if (!saved.ok) {
              setProblem(saved.error.message);
              return;
            }
            setProblem(undefined);
            onChange((saved.value as { id: string }).id);
            onDone();
            void load();
          }}
        />
      </label>
      {problem ? (
        <span className="field-problem" role="alert">
          {problem}
        </span>
      ) : null}
      {id && !compact ? <AssetView id={id} thumbnail /> : null}
    </div>
  );
}
