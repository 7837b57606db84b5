/** Small builders shared by the node-type catalogs (node-catalog.ts, node-catalog-media.ts). */
import type { HandleType, InputSpec, OutputSpec } from "./node-types.ts";

type Extra = Omit<InputSpec, "name" | "type" | "description">;

export const input = (name: string, type: HandleType, description: string, extra: Extra = {}): InputSpec => ({
  name,
  type,
  description,
  ...extra,
});

export const out = (type: HandleType, description: string, name = "output"): OutputSpec => ({
  name,
  type,
  description,
});

export const req = { required: true } as const;
