/**
 * What the gate asks and what it hears back. An approval is single-use and bound to a hash of
 * (run id, capability, canonical args): the ladder refuses an answer whose id or hash is not the
 * one it asked for, or whose id it has already consumed.
 */
import { z } from "zod";
import type { Category } from "../capabilities/types.ts";

export const ApprovalAnswer = z.enum(["allow", "allow_for_session", "deny"]);
export type ApprovalAnswer = z.infer<typeof ApprovalAnswer>;

export const ApprovalRequest = z.object({
  approval_id: z.string(),
  run_id: z.string(),
  capability: z.string(),
  category: z.enum(["read", "write", "execute", "external"]),
  /** The server's own description of the call. */
  message: z.string(),
  /** What "allow for session" would cover, when the capability is scoped (http_request: the origin). */
  scope: z.string().optional(),
  /** The agent's one-line reason (`_message`), shown labelled as the agent's words. */
  agent_message: z.string().optional(),
  /** The call's validated arguments in the boundary encoding (shared/protocol/values.ts). */
  args: z.unknown(),
  hash: z.string(),
  created_at: z.number(),
  expires_at: z.number(),
  /** Set when a script asks (a session it made through the API): shown in every signed-in page of its user. */
  from: z.literal("script").optional(),
});
export type ApprovalRequest = z.infer<typeof ApprovalRequest>;

/**
 * `answer`: the person answered (only `deny` is a "no"). `timeout`: nobody answered in time.
 * `unavailable`: nobody could be asked, or what came back could not be read; `reason` says which,
 * and the call fails with `capability_unavailable`, never as a denial the person did not give.
 */
export type ApprovalOutcome =
  | { kind: "answer"; answer: ApprovalAnswer; approval_id: string; hash: string; reason?: string }
  | { kind: "timeout" }
  | { kind: "unavailable"; reason: string };

export interface Approver {
  /** Resolve with the person's answer. `signal` aborts when the gate stops waiting (timeout, run end). */
  ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalOutcome>;
}

export interface AllowSet {
  has(capability: string): boolean | Promise<boolean>;
  add(capability: string): void | Promise<void>;
}

export type MonitorVerdict = { allow: true } | { allow: false; reason: string };
export type Monitor = (call: {
  run_id: string;
  capability: string;
  category: Category;
  args: unknown;
}) => Promise<MonitorVerdict> | MonitorVerdict;

/** JSON with sorted keys, so equal values hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const sorted: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
      return sorted;
    }
    return v;
  });
}

export async function approvalHash(runId: string, capability: string, args: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalJson({ run: runId, capability, args }));
  const digest = await globalThis.crypto.subtle.digest("SHA-256", bytes);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

export function newId(prefix: string): string {
  return `${prefix}_${globalThis.crypto.randomUUID().replace(/-/g, "")}`;
}
