/**
 * The lazy half of the registry: one loader per namespace, imported on first use. Specs stay in the
 * eager table (shared/); implementations are attached to those same objects and looked up by identity.
 */
import type { AnySpec } from "../../shared/capabilities/types.ts";
import type { Implemented } from "./define.ts";

type Loader = () => Promise<{ default: readonly Implemented[] }>;

export const LOADERS: Readonly<Record<string, Loader>> = {
  workflows: () => import("./workflows.ts"),
  memory: () => import("./memory.ts"),
  shared: () => import("./shared.ts"),
  ui: () => import("./ui.ts"),
  jobs: () => import("./jobs.ts"),
  nodes: () => import("./nodes.ts"),
  assets: () => import("./assets.ts"),
  collections: () => import("./collections.ts"),
  web: () => import("./web.ts"),
  models: () => import("./models.ts"),
  agents: () => import("./agents.ts"),
};

const loaded = new Map<string, Promise<Map<AnySpec, Implemented["impl"]>>>();

export async function loadNamespace(namespace: string): Promise<Map<AnySpec, Implemented["impl"]>> {
  let pending = loaded.get(namespace);
  if (!pending) {
    const loader = LOADERS[namespace];
    if (!loader) throw new Error(`no implementation module for namespace "${namespace}"`);
    pending = loader().then((mod) => new Map(mod.default.map((entry) => [entry.spec, entry.impl])));
    loaded.set(namespace, pending);
    pending.catch(() => loaded.delete(namespace));
  }
  return pending;
}
