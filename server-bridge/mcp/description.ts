/**
 * The `execute_code` tool's description: the action contract (shared/sandbox/contract.ts) whose list
 * of modules is the compact catalog (one line per mounted module, its methods grouped by category),
 * then what is particular to MCP (approvals as elicitations, the common error codes, images through
 * `view_image`). Declarations, schemas, limits and the full code table are not repeated: `describe()`
 * inside an action and the `nodetool://capabilities` resource have them. Target: at most 4,000
 * characters with every namespace mounted (bench/mcp.ts prints it).
 */
import { findModule } from "../../shared/capabilities/table.ts";
import { CATEGORIES } from "../../shared/capabilities/types.ts";
import type { PackInfo } from "../../shared/protocol/worker.ts";
import { actionContract } from "../../shared/sandbox/contract.ts";

export const DESCRIPTION_TARGET_CHARS = 4000;

/** `read: list, get; write: create`: a module's methods grouped by category, in category order. */
export function methodsByCategory(name: string): string {
  const module = findModule(name);
  if (!module) return "";
  return CATEGORIES.map((category) => {
    const methods = module.specs.filter((s) => s.category === category).map((s) => s.method);
    return methods.length ? `${category}: ${methods.join(", ")}` : "";
  })
    .filter(Boolean)
    .join("; ");
}

const MCP_NOTES = `On MCP: write/execute/external calls may ask the user: denied is permission_denied (do not retry unchanged), unanswered approval_timeout. risk "high": the action changes, deletes or sends things. Schemas: the resource nodetool://capabilities. Images never ride the result: return the asset (assets.save) and show it with view_image.`;

export function executeCodeDescription(options: {
  mounted: readonly string[];
  packs: readonly PackInfo[];
  timeoutMs: number;
}): string {
  return `${actionContract({ ...options, methodsOf: methodsByCategory })}\n\n${MCP_NOTES}`;
}
