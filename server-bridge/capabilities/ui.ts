/**
 * The `ui` namespace on the server: the fallback when no editor is connected (CLI, MCP, scripts).
 * Document tools apply the shared document operations to the stored workflow named by `workflow_id`,
 * with optimistic concurrency; steering tools declare `needs: ["client"]`, so the ladder answers
 * `capability_unavailable` before reaching here. With an editor connected the page applies the
 * operations itself after `run.authorize`, and these implementations are not called.
 *
 * `ui_run_workflow` without an editor runs the stored workflow (or a graph given) exactly as
 * `workflows.run_workflow` does; with an editor the page authorises it with the open graph in its
 * args and starts that job through `run.startJob`.
 */
import {
  listRenderers,
  uiAddNode,
  uiConnectNodes,
  uiCopy,
  uiDeleteEdge,
  uiDeleteNode,
  uiGetGraph,
  uiMoveNode,
  uiOpenWorkflow,
  uiPaste,
  uiRunWorkflow,
  uiSearchNodes,
  uiSetNodeTitle,
  uiSwitchTab,
  uiUpdateNodeData,
} from "../../shared/capabilities/specs/ui.specs.ts";
import { RENDERERS, searchNodeTypes } from "../../shared/graph/catalog-search.ts";
import { applyOp, type DocumentOp } from "../../shared/graph/ops.ts";
import { CodedError } from "../../shared/protocol/errors.ts";
import { runWorkflowJob } from "../engine/run-workflow.ts";
import { implement, type ServerRun } from "./define.ts";
import { failed } from "./errors.ts";
import { workflowsOf } from "./workflow-store.ts";

const ATTEMPTS = 3;

/** `T`: the spec's output; the shared operation's value has that shape (the ladder's output check holds it to it). */
async function onStored<T>(run: ServerRun, op: DocumentOp, args: Record<string, unknown>): Promise<T> {
  const workflowId = typeof args.workflow_id === "string" ? args.workflow_id : undefined;
  if (!workflowId) {
    throw new CodedError({
      code: "capability_unavailable",
      message: `${op} needs a connected editor, or a workflow_id to edit the stored workflow. Pass workflow_id (see workflows.list()).`,
    });
  }
  const workflows = workflowsOf(run);
  for (let attempt = 1; ; attempt++) {
    const current = await workflows.require(run.context.user_id, workflowId);
    const result = applyOp(current.graph, op, args);
    if (!result.ok) throw failed(result.message);
    if (result.graph === current.graph) return result.value as T;
    try {
      const saved = await workflows.update(run.context.user_id, {
        workflow_id: workflowId,
        graph: result.graph,
        expected_version: current.version,
      });
      return { ...(result.value as object), workflow_id: workflowId, version: saved.version } as T;
    } catch (err) {
      // Someone saved in between: re-apply the operation to the fresh graph, a few times at most.
      if (attempt >= ATTEMPTS) throw err;
    }
  }
}

const needsEditor = (name: string) => async () => {
  throw new CodedError({ code: "capability_unavailable", message: `${name} needs a connected editor.` });
};

export default [
  implement(uiGetGraph, (run, args) => onStored(run, "ui_get_graph", args)),
  implement(uiAddNode, (run, args) => onStored(run, "ui_add_node", args)),
  implement(uiConnectNodes, (run, args) => onStored(run, "ui_connect_nodes", args)),
  implement(uiUpdateNodeData, (run, args) => onStored(run, "ui_update_node_data", args)),
  implement(uiDeleteNode, (run, args) => onStored(run, "ui_delete_node", args)),
  implement(uiDeleteEdge, (run, args) => onStored(run, "ui_delete_edge", args)),
  implement(uiMoveNode, (run, args) => onStored(run, "ui_move_node", args)),
  implement(uiSetNodeTitle, (run, args) => onStored(run, "ui_set_node_title", args)),
  implement(uiCopy, (run, args) => onStored(run, "ui_copy", args)),
  implement(uiPaste, (run, args) => onStored(run, "ui_paste", args)),
  implement(uiOpenWorkflow, needsEditor("ui_open_workflow")),
  implement(uiSwitchTab, needsEditor("ui_switch_tab")),
  implement(uiRunWorkflow, async (run, args) => {
    if (args.workflow_id === undefined && args.graph === undefined) {
      throw new CodedError({
        code: "capability_unavailable",
        message:
          "ui_run_workflow needs a connected editor to run the open workflow, or a workflow_id to run a stored one (see workflows.list()).",
      });
    }
    return runWorkflowJob(run, args);
  }),
  implement(uiSearchNodes, async (_run, args) => ({ nodes: searchNodeTypes(args.query, args.limit) })),
  implement(listRenderers, async () => ({ renderers: [...RENDERERS] })),
];
