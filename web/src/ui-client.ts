/**
 * Serves the guest's `ui` calls in the page. For each call the server runs the gate first
 * (`run.authorize`: lookup, validation, mode, the same approval prompt, allow-set and audit); only if
 * it allows the call does the page hand it to its `UiTarget` to apply: the editor of the app's page
 * (editor/ui-target.ts: visible at once, undoable, a draft until Save), or the host page's own editor
 * for a widget (embed/host-ui.ts); then it reports the outcome with `run.complete`. A document call
 * naming another workflow than the open one goes to the server's fallback on the stored workflow.
 */
import { findModule, moduleSpecifier } from "../../shared/capabilities/table.ts";
import { type AnySpec, waitsOf } from "../../shared/capabilities/types.ts";
import type { Authorization } from "../../shared/gate/invoke.ts";
import { RENDERERS, searchNodeTypes } from "../../shared/graph/catalog-search.ts";
import type { Graph } from "../../shared/graph/document.ts";
import { isDocumentOp } from "../../shared/graph/ops.ts";
import { failure, issueLines } from "../../shared/protocol/errors.ts";
import { InvokeAnswer } from "../../shared/protocol/server.ts";
import { fromWire, toWire } from "../../shared/protocol/values.ts";
import type { WireCall, WireCallResult } from "../../shared/protocol/worker.ts";
import { foldArgs } from "../../shared/sandbox/coerce.ts";
import { resend } from "./resend.ts";
import type { Api } from "./transport.ts";

export const UI_MODULE = moduleSpecifier("ui");

/** A settled answer of the server's (`run.invoke`, `run.authorize`, ...): everything but `{pending: true}`. */
export type Answer = Exclude<InvokeAnswer, { pending: true }>;

/** What the worker is told of a call from its answer (a value already in the boundary encoding). */
export function callResult(callId: string, answer: Answer): WireCallResult {
  const waited = waitsOf(answer);
  return answer.ok
    ? { callId, ok: true, value: answer.value, ...waited }
    : { callId, ok: false, error: answer.error, ...waited };
}

const MALFORMED = "The server sent a malformed answer; nothing more is known. Retry later.";

/**
 * A server answer as the page may use it, parsed with the shared `InvokeAnswer` schema (tRPC types the
 * answers but does not check them at runtime): anything malformed becomes a coded failure, not a crash.
 */
export function readAnswer(answer: unknown): InvokeAnswer {
  const parsed = InvokeAnswer.safeParse(answer);
  return parsed.success ? parsed.data : { ok: false, error: failure("capability_failed", MALFORMED) };
}

/** What the page applied itself, in the boundary encoding (encoded here, once). */
function applied(answer: Answer): Answer {
  return answer.ok ? { ...answer, value: toWire(answer.value, "result") } : answer;
}

/** The validated arguments of an authorisation (sent encoded, decoded here once), or undefined if malformed. */
function authorizedArgs(value: unknown): Record<string, unknown> | undefined {
  const args = (value as Partial<Authorization> | null | undefined)?.args;
  if (args === null || typeof args !== "object") return undefined;
  try {
    return fromWire(args, "args") as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/**
 * The page's own `ui` results held to the spec's `output`, as the server's are in tests: always on here,
 * since these values are small and few. A mismatch is a bug of ours and is reported as one.
 */
function checkOutput(spec: AnySpec, answer: Answer): Answer {
  if (!answer.ok) return answer;
  const checked = spec.output.safeParse(answer.value);
  if (checked.success) return answer;
  const issues = issueLines(checked.error, "(args)").join("; ");
  return {
    ok: false,
    error: failure("capability_failed", `${spec.name} made a result its output schema refuses: ${issues}`),
  };
}

/** Where authorised `ui` calls are applied: an editor in this page, or the host page's. */
export interface UiTarget {
  /** The stored workflow open in the editor, if any: document calls naming another go to the server. */
  openWorkflowId(): string | undefined;
  /** What `ui_run_workflow` runs: the graph on screen (and its stored id, if it is a stored workflow). */
  runnable(): Promise<{ graph: Graph; workflowId?: string | undefined } | undefined>;
  /** Applies one authorised call (arguments validated by the server) and answers its result. */
  apply(runId: string, name: string, args: Record<string, unknown>): Promise<Answer>;
}

/** What every page answers alike, wherever its editor is: the node catalogue and the renderers. */
export function servedLocally(name: string, args: Record<string, unknown>): Answer | undefined {
  if (name === "ui_search_nodes") {
    return { ok: true, value: { nodes: searchNodeTypes(String(args.query), Number(args.limit ?? 20)) } };
  }
  if (name === "list_renderers") return { ok: true, value: { renderers: RENDERERS } };
  return undefined;
}

export class UiClient {
  constructor(
    private readonly api: Api,
    private readonly target: UiTarget,
  ) {}

  /**
   * Serves one `ui` call. Every answer that reaches the worker is in the boundary encoding: the
   * server's answers already are (relayed as they came), and what the page applies itself is encoded
   * once, by `applied`.
   */
  async serve(runId: string, call: WireCall, isCurrent: () => boolean): Promise<WireCallResult> {
    const done = (answer: Answer): WireCallResult => callResult(call.callId, answer);
    const module = findModule("ui");
    const spec =
      module?.specs.find((s) => s.name === call.export) ?? module?.specs.find((s) => s.method === call.export);
    if (!spec) {
      return done({
        ok: false,
        error: failure("unknown_export", `Module "${UI_MODULE}" has no export "${call.export}".`),
      });
    }
    let decoded: unknown[];
    try {
      decoded = fromWire(call.args, "args") as unknown[];
    } catch (err) {
      return done({
        ok: false,
        error: failure(
          "invalid_call",
          `${call.export}: ${err instanceof Error ? err.message : "undecodable arguments"}`,
        ),
      });
    }
    const folded = foldArgs(spec, decoded);
    if (!folded.ok)
      return done({ ok: false, error: failure("invalid_call", `${UI_MODULE} ${call.export}: ${folded.message}`) });
    const args = { ...folded.args };

    // Another workflow than the open one: the server acts on the stored copy (same gate, no editor).
    const acts = isDocumentOp(spec.name) || spec.name === "ui_run_workflow";
    if (acts && typeof args.workflow_id === "string" && args.workflow_id !== this.target.openWorkflowId()) {
      return done(
        await this.#resend(
          () =>
            this.api.run.invoke.mutate({
              runId,
              module: UI_MODULE,
              export: spec.name,
              args: [toWire(args, "args")],
              callId: call.callId,
            }),
          isCurrent,
        ),
      );
    }

    if (spec.name === "ui_run_workflow") {
      const runnable = await this.target.runnable();
      if (!runnable) {
        return done({
          ok: false,
          error: failure(
            "capability_unavailable",
            "ui_run_workflow: no workflow is open in the editor. Open one or pass workflow_id.",
          ),
        });
      }
      // The graph on screen (saved or not) is what runs; the approval is bound to exactly this graph.
      args.graph = runnable.graph;
      if (runnable.workflowId !== undefined) args.workflow_id = runnable.workflowId;
    }
    const authorized = await this.#resend(
      () =>
        this.api.run.authorize.mutate({
          runId,
          capability: spec.name,
          args: toWire(args, "args"),
          callId: call.callId,
        }),
      isCurrent,
    );
    if (!authorized.ok) return done(authorized);
    const valid = authorizedArgs(authorized.value);
    if (!valid) return done({ ok: false, error: failure("capability_failed", MALFORMED) });
    const outcome =
      spec.name === "ui_run_workflow"
        ? await this.#runJob(runId, call.callId, valid as { wait_ms?: number }, isCurrent)
        : // A job's answer comes from the server (checked there); what the page made itself is checked here.
          applied(
            checkOutput(spec, servedLocally(spec.name, valid) ?? (await this.target.apply(runId, spec.name, valid))),
          );
    const report = {
      runId,
      callId: call.callId,
      ok: outcome.ok,
      ...(outcome.ok ? {} : { error: { code: outcome.error.code, message: outcome.error.message } }),
    };
    await resend(() => this.api.run.complete.mutate(report), isCurrent).catch(() => {});
    return done({ ...outcome, ...waitsOf(authorized) });
  }

  /** Starts the authorised job on the server, then waits for it like workflows.run does. */
  async #runJob(runId: string, callId: string, args: { wait_ms?: number }, isCurrent: () => boolean): Promise<Answer> {
    const started = await this.#resend(() => this.api.run.startJob.mutate({ runId, callId }), isCurrent);
    if (!started.ok) return started;
    const job_id = (started.value as { job_id?: unknown } | null)?.job_id;
    if (typeof job_id !== "string") return { ok: false, error: failure("capability_failed", MALFORMED) };
    return this.#resend(
      () =>
        this.api.run.invoke.mutate({
          runId,
          module: moduleSpecifier("jobs"),
          export: "wait_job",
          args: [{ job_id, wait_ms: args.wait_ms ?? 20_000 }],
          callId: `${callId}:wait`,
        }),
      isCurrent,
    );
  }

  /** Sends a held call again with the same callId while the server answers `{pending: true}`. */
  async #resend(send: () => Promise<unknown>, isCurrent: () => boolean): Promise<Answer> {
    for (;;) {
      let answer: unknown;
      try {
        answer = await resend(send, isCurrent);
      } catch (err) {
        return {
          ok: false,
          error: failure(
            "capability_failed",
            `The server could not be reached: ${err instanceof Error ? err.message : "network error"}`,
          ),
        };
      }
      const read = readAnswer(answer);
      if ("pending" in read) {
        if (!isCurrent()) return { ok: false, error: failure("run_ended", "The action ended while this call waited.") };
        continue;
      }
      return read;
    }
  }
}
