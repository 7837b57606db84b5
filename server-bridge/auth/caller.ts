/**
 * Who is calling, as one value (DESIGN.md section 8a): the user, how they authenticated, and the
 * session that credential belongs to. Every entrance builds one (HTTP guards, the tRPC context, MCP),
 * so a new kind of credential is a new `via`, not a new branch at each use.
 *
 * - `cookie`: the signed-in person's browser (`session` is the login id);
 * - `bearer`: the admin token sent as `Authorization: Bearer`;
 * - `api`: an API token (scripts and agents: the API only, never a browser sign-in);
 * - `mcp`: the MCP token, or the local user over stdio (`session` is the MCP session id when known).
 */
export type Via = "cookie" | "bearer" | "api" | "mcp";

export interface Caller {
  readonly user: string;
  readonly via: Via;
  readonly session?: string | undefined;
}

/** Only the person (their browser's cookie session) answers approvals, changes modes or acts as the user. */
export function isPerson(caller: Caller): boolean {
  return caller.via === "cookie";
}
