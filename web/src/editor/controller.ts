/**
 * The editor's own controls, acting as the user: list, open, create, save, rename and delete
 * workflows, and hand edits on the canvas. Each is a user-actor call on the page's own run (audited, never prompted). Unsaved
 * changes are a draft in IndexedDB that survives a reload; Save sends `expected_version` and reports a
 * conflict instead of overwriting.
 */
import { del, get, set } from "idb-keyval";
import type { Graph, Workflow } from "../../../shared/graph/document.ts";
import { type DocumentOp, freshId } from "../../../shared/graph/ops.ts";
import { plural } from "../../../shared/protocol/durations.ts";
import type { FailurePayload } from "../../../shared/protocol/errors.ts";
import type { Api } from "../transport.ts";
import { Drafts } from "./drafts.ts";
import type { WorkflowExample } from "./examples.ts";
import type { EditorStore } from "./store.ts";
import { UserCalls } from "./user-calls.ts";
import { OpenVersions } from "./versions.ts";
import { readWorkflowFile, WORKFLOW_FILE_MAX_BYTES, workflowFile } from "./workflow-file.ts";

export interface WorkflowSummary {
  id: string;
  name: string;
  description?: string | undefined;
  version: number;
  updated_at: string;
}

/** One hand edit: a document operation and its arguments. */
export interface Edit {
  op: DocumentOp;
  args: Record<string, unknown>;
}

export type SaveOutcome = { ok: true } | { ok: false; conflict: boolean; message: string };

/**
 * A refusal of what the person typed into one field, in the schema's own words for that field (the
 * `issues` entries are `path: message`, DESIGN.md section 5); any other refusal keeps its message.
 */
function fieldRefusal(error: FailurePayload, field: string): string {
  const prefix = `${field}: `;
  const own =
    error.code === "invalid_tool_arguments"
      ? (error.issues ?? []).filter((i) => i.startsWith(prefix)).map((i) => i.slice(prefix.length))
      : [];
  return own.length > 0 ? own.join("; ") : error.message;
}

/** Why a file or an asset cannot go on the canvas now. */
const OPEN_FIRST = "Open or create a workflow to add files to it.";

/** A hand edit's audit waits while its group (one field's keystrokes) goes on: one audit per edit. */
const AUDIT_SETTLE_MS = 800;

export class EditorController {
  readonly calls: UserCalls;
  /** The open workflow's other versions: the kept ones, and a newer one saved elsewhere. */
  readonly versions: OpenVersions;
  #pendingAudit: { group: string; op: DocumentOp; args: Record<string, unknown> } | undefined;
  #auditTimer: ReturnType<typeof setTimeout> | undefined;
  /** The nodes the person has selected on the canvas (the editor keeps it current): `ui.getGraph` tells it. */
  selection: readonly string[] = [];
  /** Workflows this page is deleting: their `deleted` event is this page's own act, not news from elsewhere. */
  readonly #deleting = new Set<string>();
  readonly #drafts = new Drafts();

  constructor(
    api: Api,
    readonly store: EditorStore,
    sessionId: string,
  ) {
    this.calls = new UserCalls(api, sessionId);
    this.versions = new OpenVersions(store, this.calls);
    // The draft of the open workflow is kept while it differs from the stored one, and dropped when this
    // page's draft goes (saved, undone): a tab that was clean all along leaves another tab's draft be.
    let drafting: string | undefined;
    store.onChange = (snapshot) => {
      const id = snapshot.workflow?.id;
      if (snapshot.dirty && id) {
        drafting = id;
        this.#drafts.keep(id, { graph: snapshot.graph, version: snapshot.workflow?.version ?? 0 });
      } else if (id && drafting === id) {
        drafting = undefined;
        this.#drafts.drop(id);
      }
    };
  }

  async list(): Promise<WorkflowSummary[]> {
    const result = await this.calls.invoke("workflows", "list", [{ limit: 200 }]);
    return result.ok ? (result.value as { workflows: WorkflowSummary[] }).workflows : [];
  }

  async open(id: string, options: { discardDraft?: boolean } = {}): Promise<string | undefined> {
    const result = await this.calls.invoke("workflows", "get", [id]);
    if (!result.ok) return result.error.message;
    const workflow = result.value as Workflow;
    if (options.discardDraft) await this.#drafts.discard(id);
    const draft = options.discardDraft ? undefined : await this.#drafts.read(id);
    this.store.open(workflow, draft);
    await set("open-workflow", id);
    return undefined;
  }

  readonly #revealers = new Set<(nodeId: string) => void>();

  /**
   * Shows a workflow, or a node of it, to the person (the Jobs tab's `Open workflow` and `Show node`):
   * opens the workflow when another is open (its draft is kept), then the canvas selects the node,
   * brings it into view and focuses it. Answers why not, when it cannot.
   */
  async reveal(workflowId: string | null, nodeId?: string): Promise<string | undefined> {
    if (workflowId !== null && workflowId !== this.store.getSnapshot().workflow?.id) {
      const failed = await this.open(workflowId);
      if (failed) return failed;
    }
    if (nodeId === undefined) return undefined;
    if (!this.store.getSnapshot().graph.nodes.some((node) => node.id === nodeId)) {
      return `Node "${nodeId}" is not in the workflow on the canvas any more.`;
    }
    for (const reveal of this.#revealers) reveal(nodeId);
    return undefined;
  }

  /** The canvas listens here for nodes to show. */
  onReveal(listener: (nodeId: string) => void): () => void {
    this.#revealers.add(listener);
    return () => this.#revealers.delete(listener);
  }

  /**
   * Opens what the page had open: the workflow its address names (a reload, a link), else the one
   * last opened here. Answers why the linked one could not be opened.
   */
  async restore(linked?: string): Promise<string | undefined> {
    if (linked) {
      const failed = await this.open(linked);
      // The refusal's first sentence (what follows is a hint for an action's author).
      return failed && `The workflow this page's address names could not be opened: ${failed.split(/(?<=\.) /)[0]}`;
    }
    const id = await get<string>("open-workflow");
    if (id) await this.open(id);
    return undefined;
  }

  async create(name: string): Promise<string | undefined> {
    return this.#createAndOpen({ name });
  }

  /** A workflow to start from (examples.ts) as a new workflow of the person's own, opened. */
  async createFrom(example: WorkflowExample): Promise<string | undefined> {
    const { name, description, graph } = example;
    return this.#createAndOpen({ name, description, graph });
  }

  /** Closes the open workflow (an unsaved draft of it stays for when it opens again): the start page shows. */
  async close(): Promise<void> {
    this.store.close();
    await del("open-workflow");
  }

  /** The open draft as a new workflow of the same name (the one it came from was deleted elsewhere). */
  async saveAsNew(): Promise<string | undefined> {
    const { workflow, graph } = this.store.getSnapshot();
    if (!workflow) return "No workflow is open.";
    return this.#createAndOpen({ name: workflow.name, description: workflow.description, graph });
  }

  /**
   * A copy of the open workflow, with the graph on screen (its unsaved draft too), named `<name> (copy)`
   * (`(copy 2)`... when `taken` has that name), opened; the original keeps its draft.
   */
  async duplicate(taken: readonly string[]): Promise<string | undefined> {
    const { workflow, graph } = this.store.getSnapshot();
    if (!workflow) return "No workflow is open.";
    return this.#createAndOpen({ name: copyName(workflow.name, taken), description: workflow.description, graph });
  }

  /** A file `Export` wrote (or a bare graph) as a new workflow, opened; or why it cannot be. */
  async importFile(file: Pick<File, "name" | "size" | "text">): Promise<string | undefined> {
    if (file.size > WORKFLOW_FILE_MAX_BYTES) {
      return `${file.name} cannot be imported: it is larger than ${WORKFLOW_FILE_MAX_BYTES / 1024 / 1024} MB.`;
    }
    const read = readWorkflowFile(await file.text(), file.name);
    if ("error" in read) return read.error;
    return this.#createAndOpen(read);
  }

  /** The open workflow with the graph on screen (its unsaved draft too), as a file to download. */
  exportFile(): { fileName: string; text: string } | undefined {
    const { workflow, graph } = this.store.getSnapshot();
    return workflow ? workflowFile(workflow, graph) : undefined;
  }

  async #createAndOpen(args: { name: string; description?: string; graph?: Graph }): Promise<string | undefined> {
    const result = await this.calls.invoke("workflows", "create", [args]);
    if (!result.ok) return result.error.message;
    const created = result.value as Workflow;
    this.store.open(created);
    await set("open-workflow", created.id);
    return undefined;
  }

  /**
   * Renames the open workflow, or sets its description; its graph (and any unsaved draft of it) stays
   * as it is. Sent with the version the editor holds, so it never hides a save made elsewhere meanwhile.
   * Answers a refusal of the value in the schema's words for that field.
   */
  async setDetail(field: "name" | "description", value: string): Promise<string | undefined> {
    const { workflow } = this.store.getSnapshot();
    if (!workflow) return "No workflow is open.";
    const result = await this.versions.write(() =>
      this.calls.invoke("workflows", "update", [
        { workflow_id: workflow.id, [field]: value, expected_version: workflow.version },
      ]),
    );
    if (!result.ok) return fieldRefusal(result.error, field);
    this.store.markDetails(result.value as Workflow);
    return undefined;
  }

  /** Deletes the open workflow and its draft, then opens the newest one left (or none). */
  async remove(): Promise<string | undefined> {
    const { workflow } = this.store.getSnapshot();
    if (!workflow) return "No workflow is open.";
    this.#deleting.add(workflow.id);
    try {
      const result = await this.calls.invoke("workflows", "delete", [workflow.id]);
      if (!result.ok) return result.error.message;
      this.store.close();
    } finally {
      this.#deleting.delete(workflow.id);
    }
    await this.#drafts.discard(workflow.id);
    const next = (await this.list()).find((w) => w.id !== workflow.id);
    if (next) return this.open(next.id);
    await del("open-workflow");
    return undefined;
  }

  /** A workflow was deleted by an action, another tab or MCP (not by this page's own Delete). */
  deletedElsewhere(id: string): void {
    if (!this.#deleting.has(id)) this.store.deletedElsewhere(id);
  }

  /**
   * Saves the draft as the next version of the one it is based on, or (`over`: the newer version saved
   * elsewhere, which stays in Versions) of that one. A conflict marks the newer version, for the banner.
   */
  async save(over?: number): Promise<SaveOutcome> {
    const { workflow, graph } = this.store.getSnapshot();
    if (!workflow) return { ok: false, conflict: false, message: "No workflow is open." };
    const result = await this.versions.write(() =>
      this.calls.invoke("workflows", "update", [
        { workflow_id: workflow.id, graph, expected_version: over ?? workflow.version },
      ]),
    );
    if (result.ok) {
      this.store.markSaved(result.value as Workflow);
      return { ok: true };
    }
    const conflict = /version conflict/i.test(result.error.message);
    if (conflict) await this.versions.conflicted(workflow.id);
    return { ok: false, conflict, message: result.error.message };
  }

  /**
   * A hand edit: applied to the draft at once, audited on the server as the user's act. Edits of one
   * `group` are one undo step (and one audit, once the group goes quiet or ends).
   */
  userEdit(op: DocumentOp, args: Record<string, unknown>, group?: string): string | undefined {
    const result = this.store.apply(op, args, { group });
    if (!result.ok) return result.message;
    if (this.#pendingAudit && this.#pendingAudit.group !== group) this.#flushAudit();
    if (group === undefined) {
      void this.#audit(op, args);
    } else {
      this.#pendingAudit = { group, op, args };
      clearTimeout(this.#auditTimer);
      this.#auditTimer = setTimeout(() => this.#flushAudit(), AUDIT_SETTLE_MS);
    }
    return undefined;
  }

  /** Several hand edits as one undo step (a paste with its edges, an auto layout). */
  userEdits(edits: readonly Edit[]): string | undefined {
    const group = this.calls.callId("edits");
    for (const { op, args } of edits) {
      this.#flushAudit();
      const problem = this.store.apply(op, args, { group });
      if (!problem.ok) {
        this.store.endGroup();
        return problem.message;
      }
      void this.#audit(op, args);
    }
    this.store.endGroup();
    return undefined;
  }

  /**
   * Files dropped on the canvas: each saved as the person's asset, then a `Load asset` node of each at
   * `at` (the next a little lower), one undo step. `stop` ends the batch: the file going up is dropped,
   * the ones already up are still added. Answers the new nodes, and why any file was not added.
   */
  async addFiles(
    files: readonly File[],
    at: { x: number; y: number },
    progress?: (name: string, fraction: number) => void,
    stop?: AbortSignal,
  ): Promise<{ nodes: string[]; problem?: string | undefined }> {
    if (!this.store.getSnapshot().workflow) return { nodes: [], problem: OPEN_FIRST };
    const refused: string[] = [];
    const saved: { id: string; name: string }[] = [];
    for (const file of files) {
      if (stop?.aborted) break;
      progress?.(file.name, 0);
      const result = await this.calls
        .saveFile(file, (fraction) => progress?.(file.name, fraction), stop)
        .catch(() => undefined);
      if (!result) refused.push(`${file.name}: the browser could not read it, or the page lost the server.`);
      else if (result.ok) saved.push({ id: (result.value as { id: string }).id, name: file.name });
      else if (result.error.code !== "cancelled") refused.push(`${file.name}: ${result.error.message}`);
    }
    const added = saved.length > 0 ? this.addAssets(saved, at) : { nodes: [] };
    const problems = [
      ...(stop?.aborted ? [`Stopped: ${saved.length} of ${plural(files.length, "file")} uploaded and added.`] : []),
      ...(added.problem ? [added.problem] : []),
      ...(refused.length > 0 ? [`Not added: ${refused.join(" ")}`] : []),
    ];
    return { nodes: added.nodes, problem: problems.length > 0 ? problems.join(" ") : undefined };
  }

  /**
   * A `Load asset` node of each of the person's assets, titled by its name, at `at` (the next a little
   * lower; none given: right of the others), one undo step. Answers the new nodes, or why not.
   */
  addAssets(
    assets: readonly { id: string; name: string }[],
    at?: { x: number; y: number },
  ): { nodes: string[]; problem?: string | undefined } {
    if (!this.store.getSnapshot().workflow) return { nodes: [], problem: OPEN_FIRST };
    const taken = new Set(this.store.getSnapshot().graph.nodes.map((n) => n.id));
    const edits: Edit[] = assets.map((asset, i) => {
      const node_id = freshId("asset_load", taken);
      taken.add(node_id);
      const position = at && { x: Math.round(at.x), y: Math.round(at.y + i * 90) };
      return {
        op: "ui_add_node",
        args: {
          node_type: "asset.load",
          node_id,
          ...(position ? { position } : {}),
          title: asset.name,
          data: { asset: asset.id },
        },
      };
    });
    const failed = this.userEdits(edits);
    return failed ? { nodes: [], problem: failed } : { nodes: edits.map((e) => e.args.node_id as string) };
  }

  /** A field edit ended (blur): its next keystroke starts a new undo step. */
  endEdit(): void {
    this.store.endGroup();
    this.#flushAudit();
  }

  #flushAudit(): void {
    clearTimeout(this.#auditTimer);
    const pending = this.#pendingAudit;
    this.#pendingAudit = undefined;
    if (pending) void this.#audit(pending.op, pending.args);
  }

  async #audit(op: DocumentOp, args: Record<string, unknown>): Promise<void> {
    // Auditing a hand edit must never block or undo the edit itself; a failure is only a missing row.
    await this.calls.authorize(op, args).catch(() => undefined);
  }
}

/** `<name> (copy)`, or `(copy 2)`, `(copy 3)`... the first that no workflow in `taken` has. */
export function copyName(name: string, taken: readonly string[]): string {
  const base = name.replace(/ \(copy(?: \d+)?\)$/, "");
  const names = new Set(taken);
  for (let n = 1; ; n++) {
    const candidate = `${base} (copy${n === 1 ? "" : ` ${n}`})`;
    if (!names.has(candidate)) return candidate;
  }
}
