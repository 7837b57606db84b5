/**
 * The `nodetool://capabilities` resource: everything a client may want to know before writing an
 * action, as JSON. The server, its two direct tools, and each mounted module with its exports (wire
 * name, method, description, category, and the input and output JSON Schemas derived from the spec's zod schemas),
 * plus the library packs the session allows. Built from the eager spec table; nothing is written twice.
 */
import { describeModules } from "../../shared/capabilities/catalog.ts";
import type { PackInfo } from "../../shared/protocol/worker.ts";
import { packSpecifier } from "../../shared/sandbox/facade.ts";

export const CAPABILITIES_URI = "nodetool://capabilities";
export const SERVER_INFO = { name: "nodetool-sandbox", version: "0.1.0" } as const;

export interface DirectTool {
  name: string;
  description: string;
}

export function capabilitiesDocument(options: {
  mounted: readonly string[];
  packs: readonly PackInfo[];
  tools: readonly DirectTool[];
  mode: string;
}) {
  return {
    server: { ...SERVER_INFO, mode: options.mode },
    tools: options.tools,
    modules: describeModules(options.mounted),
    packs: options.packs.map((pack) => ({
      name: pack.name,
      specifier: packSpecifier(pack.name),
      description: pack.description,
      exports: pack.exports,
    })),
  };
}
