/**
 * Who is calling, as one value (DESIGN.md section 8a): the user, how they authenticated, and the
 * session that credential belongs to. Every entrance builds one (HTTP guards, the tRPC context, MCP),
 * so a new kind of credential is a new `via`, not a new branch at each use.
 *
 * - `cookie`: the signed-in person's browser (`session` is the login id);
 * - `bearer`: the admin token sent as `Authorization: Bearer`;
 * - `api`: an API token (scripts and agents: the API only, never a browser sign-in);
 * - `mcp`: the MCP token, or the local user over stdio (`session` is the MCP session id when known);
 * - `widget`: an embedded widget's iframe, by the credential it exchanged its token for (`session` is
 *   the credential id, `widget` the policy it acts under: only its own sessions, modules and modes).
 */
import type { WidgetPolicy } from "./widget-policy.ts";

export type Via = "cookie" | "bearer" | "api" | "mcp" | "widget";

export interface Caller {
  readonly user: string;
  readonly via: Via;
  readonly session?: string | undefined;
  readonly widget?: WidgetPolicy | undefined;
}

/**
 * Only a person answers approvals, changes modes or acts as the user: the signed-in browser (its
 * cookie session), or the person inside a widget's iframe (its credential). Either only from its own
 * page: the tRPC context says whether the request was same-origin.
 */
export function isPerson(caller: Caller): boolean {
  return caller.via === "cookie" || caller.via === "widget";
}
