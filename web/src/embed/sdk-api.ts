/**
 * The host SDK's public types, self-contained (no imports), so that this file with one line added is
 * the `.d.ts` served at `/embed/sdk.d.ts` (server-bridge/build.ts writes it). sdk.ts checks at compile
 * time that each type here is exactly the protocol's (shared/embed/protocol.ts): this is the protocol
 * written out for a page that has none of our code, never a second definition that could drift.
 */

/** The codes a failure carries: the same ones the server's API and actions use. */
export type WidgetErrorCode =
  | "unknown_module"
  | "unknown_export"
  | "invalid_call"
  | "unknown_capability"
  | "invalid_tool_arguments"
  | "blocked_in_plan_mode"
  | "permission_denied"
  | "approval_timeout"
  | "blocked_by_security_monitor"
  | "capability_unavailable"
  | "capability_failed"
  | "run_ended"
  | "cancelled"
  | "timeout"
  | "memory_limit"
  | "import_refused"
  | "result_too_large"
  | "unauthorized"
  | "action_failed";

/** What one action run gives back: its result or its coded error, its logs and the calls it made. */
export interface WidgetObservation {
  ok: boolean;
  result?: unknown;
  error?:
    | { code: WidgetErrorCode; message: string; line?: number | undefined; column?: number | undefined }
    | undefined;
  logs: string[];
  calls: { capability: string; ok: boolean; ms: number; waited_ms?: number | undefined }[];
  duration_ms: number;
  truncated?: boolean | undefined;
}

/** What the host hears happen in the widget: never an approval's arguments, never its answer's author. */
export type WidgetEvent =
  | {
      type: "approval";
      approval_id: string;
      run_id: string;
      capability: string;
      category: "read" | "write" | "execute" | "external";
      /** `pending` when it is asked; then how the person (or the clock) settled it. */
      status: "pending" | "allow" | "allow_for_session" | "deny" | "timeout" | "cancelled";
    }
  | { type: "run_ended"; run_id: string; reason: string }
  | {
      type: "job_progress";
      job_id: string;
      status: "queued" | "running";
      node_id?: string | undefined;
      node_status?: "running" | "completed" | "failed" | undefined;
      percent: number;
    };

export interface WidgetGraphNode {
  id: string;
  type: string;
  data: Record<string, unknown>;
  position: { x: number; y: number };
  title?: string | undefined;
}

export interface WidgetGraphEdge {
  id: string;
  source: string;
  sourceHandle: string;
  target: string;
  targetHandle: string;
}

/** A graph as the SDK hands it to `ui.apply` (every field present). */
export interface WidgetGraph {
  nodes: WidgetGraphNode[];
  edges: WidgetGraphEdge[];
}

/** A graph as `ui.getGraph()` may give it (`data`, `position`, even `nodes` and `edges` may be left out). */
export interface WidgetGraphInput {
  nodes?:
    | (Omit<WidgetGraphNode, "data" | "position"> & Partial<Pick<WidgetGraphNode, "data" | "position">>)[]
    | undefined;
  edges?: WidgetGraphEdge[] | undefined;
}

export interface WidgetUi {
  /** The graph open in the host's editor now. */
  getGraph(): WidgetGraphInput | Promise<WidgetGraphInput>;
  /** Show `graph` in the host's editor: the result of the authorised `change`. */
  apply(graph: WidgetGraph, change: { capability: string; args: Record<string, unknown> }): void | Promise<void>;
}

export interface MountOptions {
  /** The sandbox server's address, e.g. `http://127.0.0.1:8787`. */
  server: string;
  /** The widget's public id (`wgt_...`). */
  widget: string;
  /** The visitor's widget token, minted by the host's server (`POST /embed/token`); used once. */
  token: string;
  /** Serve the `ui` namespace for the host's own editor. */
  ui?: WidgetUi | undefined;
  /** Told of approvals (asked and settled, without their arguments), run ends and job progress. */
  onEvent?: ((event: WidgetEvent) => void) | undefined;
  /** The iframe's accessible title (default "nodetool agent"). */
  title?: string | undefined;
}

export interface WidgetStats {
  /** Messages from other windows or origins, or malformed, ignored so far (by why). */
  ignored: { source: number; origin: number; malformed: number };
}

export interface WidgetHandle {
  readonly iframe: HTMLIFrameElement;
  /** Resolves once the widget is signed in; rejects with the reason it cannot be (a refused token...). */
  readonly ready: Promise<void>;
  /** Runs an action in the widget's sandbox; never throws: a failure is an observation with its code. */
  run(actionSource: string, options?: { timeoutMs?: number | undefined }): Promise<WidgetObservation>;
  /** Messages ignored so far. */
  stats(): WidgetStats;
  /** Removes the iframe; runs still waiting resolve as `run_ended`. */
  destroy(): void;
}

/** Inserts the widget's iframe into `element` (sized to it) and connects it with the visitor's token. */
export type MountAgentWidget = (element: HTMLElement, options: MountOptions) => WidgetHandle;
