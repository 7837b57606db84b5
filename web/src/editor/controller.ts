/**
 * The editor's own controls, acting as the user: list, open, create and save workflows, and hand edits
 * on the canvas. Each is a user-actor call on the page's own run (audited, never prompted). Unsaved
 * changes are a draft in IndexedDB that survives a reload; Save sends `expected_version` and reports a
 * conflict instead of overwriting. The editor holds host values (an asset in a node's data is an
 * `AssetRef`): what it sends is encoded, what it receives (and its drafts) decoded, once each.
 */
import { del, get, set } from "idb-keyval";
import type { InvokeResult } from "../../../shared/capabilities/types.ts";
import type { Graph, Workflow } from "../../../shared/graph/document.ts";
import type { DocumentOp } from "../../../shared/graph/ops.ts";
import { fromWire, toWire } from "../../../shared/protocol/values.ts";
import type { Api } from "../api.ts";
import type { EditorStore } from "./store.ts";

const WORKFLOWS = "@nodetool-ai/sandbox-nodetool/workflows";

export interface WorkflowSummary {
  id: string;
  name: string;
  version: number;
  updated_at: string;
}

/** A draft as IndexedDB keeps it: the graph in the boundary encoding (a structured clone drops classes). */
interface Draft {
  graph: unknown;
  version: number;
}

export type SaveOutcome = { ok: true } | { ok: false; conflict: boolean; message: string };

export class EditorController {
  #runId: string | undefined;
  #edits = 0;

  constructor(
    private readonly api: Api,
    readonly store: EditorStore,
    private readonly sessionId: string,
  ) {
    store.onChange = (snapshot) => {
      const id = snapshot.workflow?.id;
      if (!id) return;
      if (snapshot.dirty)
        void set(`draft:${id}`, {
          graph: toWire(snapshot.graph, "graph"),
          version: snapshot.workflow?.version ?? 0,
        } satisfies Draft);
      else void del(`draft:${id}`);
    };
  }

  async #run(): Promise<string> {
    if (!this.#runId)
      this.#runId = (await this.api.run.start.mutate({ sessionId: this.sessionId, editor: true })).runId;
    return this.#runId;
  }

  /** A user-actor capability call on the page's run, restarting the run once if it ended. */
  async #invoke(exp: string, args: unknown[]): Promise<InvokeResult> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const runId = await this.#run();
      const answer = await this.api.run.invoke.mutate({
        runId,
        module: WORKFLOWS,
        export: exp,
        args: toWire(args, "args") as unknown[],
        actor: "user",
      });
      if ("pending" in answer) continue;
      if (!answer.ok && answer.error.code === "run_ended") {
        this.#runId = undefined;
        continue;
      }
      return answer.ok ? { ok: true, value: fromWire(answer.value, "result") } : answer;
    }
    return {
      ok: false,
      error: { code: "run_ended", message: "The editor lost its connection to the server; reload the page." },
    };
  }

  async list(): Promise<WorkflowSummary[]> {
    const result = await this.#invoke("list", [{ limit: 200 }]);
    return result.ok ? (result.value as { workflows: WorkflowSummary[] }).workflows : [];
  }

  async open(id: string, options: { discardDraft?: boolean } = {}): Promise<string | undefined> {
    const result = await this.#invoke("get", [id]);
    if (!result.ok) return result.error.message;
    const workflow = result.value as Workflow;
    if (options.discardDraft) await del(`draft:${id}`);
    const draft = options.discardDraft ? undefined : await get<Draft>(`draft:${id}`);
    this.store.open(workflow, draft ? (fromWire(draft.graph, "draft") as Graph) : undefined);
    await set("open-workflow", id);
    return undefined;
  }

  async restore(): Promise<void> {
    const id = await get<string>("open-workflow");
    if (id) await this.open(id);
  }

  async create(name: string): Promise<string | undefined> {
    const result = await this.#invoke("create", [{ name }]);
    if (!result.ok) return result.error.message;
    const workflow = result.value as Workflow;
    this.store.open(workflow);
    await set("open-workflow", workflow.id);
    return undefined;
  }

  async save(): Promise<SaveOutcome> {
    const { workflow, graph } = this.store.getSnapshot();
    if (!workflow) return { ok: false, conflict: false, message: "No workflow is open." };
    const result = await this.#invoke("update", [
      { workflow_id: workflow.id, graph, expected_version: workflow.version },
    ]);
    if (result.ok) {
      this.store.markSaved(result.value as Workflow);
      return { ok: true };
    }
    return { ok: false, conflict: /version conflict/i.test(result.error.message), message: result.error.message };
  }

  /** A hand edit: applied to the draft at once, audited on the server as the user's act. */
  userEdit(op: DocumentOp, args: Record<string, unknown>): string | undefined {
    const result = this.store.apply(op, args);
    if (!result.ok) return result.message;
    void this.#audit(op, args);
    return undefined;
  }

  async #audit(op: DocumentOp, args: Record<string, unknown>): Promise<void> {
    try {
      const runId = await this.#run();
      const callId = `edit-${Date.now().toString(36)}-${this.#edits++}`;
      const answer = await this.api.run.authorize.mutate({
        runId,
        capability: op,
        args: toWire(args, "args"),
        callId,
        actor: "user",
      });
      if ("ok" in answer && answer.ok) await this.api.run.complete.mutate({ runId, callId, ok: true });
    } catch {
      // Auditing a hand edit must never block the edit itself.
    }
  }
}
