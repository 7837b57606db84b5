/**
 * The editor's `Run workflow`: runs the graph on screen (saved or not; with "save first", the draft is
 * saved before) as the person's own act: the server authorises `ui_run_workflow` as the user and starts
 * the job, whose effects then run as the user too (no prompts). Before the first run of a graph whose
 * nodes write, execute or reach outside, the person is told which categories it will use and asked
 * once per workflow (again only when a new one appears).
 */
import { get, set } from "idb-keyval";
import { effectsOf, isNote, type NodeEffect } from "../../../shared/graph/node-types.ts";
import type { JobsStore } from "../jobs/jobs-store.ts";
import { readAnswer } from "../ui-client.ts";
import type { EditorController } from "./controller.ts";
import { RunFields } from "./run-fields.ts";

export type Effect = NodeEffect & { node_types: string[] };

const confirmedKey = (workflowId: string) => `run-confirmed:${workflowId}`;

export class WorkflowRunner {
  /** What the run input fields hold, per workflow. */
  readonly fields = new RunFields();

  constructor(
    private readonly controller: EditorController,
    private readonly jobs: JobsStore,
  ) {}

  /** The non-read effects of the open graph the person has not confirmed for this workflow yet. */
  async unconfirmed(): Promise<Effect[]> {
    const { workflow, graph } = this.controller.store.getSnapshot();
    if (!workflow) return [];
    const effects = effectsOf(graph.nodes.map((n) => n.type)).filter((e) => e.category !== "read");
    if (effects.length === 0) return [];
    const confirmed = new Set((await get<string[]>(confirmedKey(workflow.id))) ?? []);
    return effects.filter((e) => !confirmed.has(e.capability));
  }

  async confirm(effects: readonly Effect[]): Promise<void> {
    const id = this.controller.store.getSnapshot().workflow?.id;
    if (!id) return;
    const confirmed = (await get<string[]>(confirmedKey(id))) ?? [];
    await set(confirmedKey(id), [...new Set([...confirmed, ...effects.map((e) => e.capability)])]);
  }

  /** Starts the job; answers its id, or a message saying why it did not start. */
  async run(options: {
    saveFirst: boolean;
    inputs?: Record<string, unknown>;
  }): Promise<{ jobId: string } | { problem: string }> {
    const store = this.controller.store;
    if (options.saveFirst && store.getSnapshot().dirty) {
      const saved = await this.controller.save();
      if (!saved.ok) return { problem: `Not run: the draft could not be saved. ${saved.message}` };
    }
    const { workflow, graph } = store.getSnapshot();
    if (!workflow) return { problem: "Open a workflow first." };
    const calls = this.controller.calls;
    const started = await calls.authorize(
      "ui_run_workflow",
      { workflow_id: workflow.id, graph, inputs: options.inputs ?? {} },
      async (runId, callId) => {
        const answer = readAnswer(await calls.api.run.startJob.mutate({ runId, callId }));
        return "pending" in answer
          ? { ok: false, error: { code: "capability_failed", message: "No answer." } }
          : answer;
      },
    );
    if (!started.ok) return { problem: started.error.message };
    const jobId = (started.value as { job_id?: unknown } | null)?.job_id;
    if (typeof jobId !== "string") return { problem: "The server sent a malformed answer; nothing more is known." };
    this.jobs.started(
      { job_id: jobId, workflow_id: workflow.id, workflow_name: workflow.name },
      graph.nodes.filter((n) => !isNote(n.type)).map((n) => n.id),
    );
    return { jobId };
  }
}
