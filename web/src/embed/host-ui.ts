/**
 * The widget's `UiTarget` when its host serves the `ui` namespace for its own editor: an authorised
 * document call travels to the host (`ui_call`), which applies it to its graph with the same document
 * operations the app's editor uses (the SDK runs them) and answers the result; `ui_run_workflow` runs
 * the host's graph as it is (`ui_graph`). The host's editor is not a stored workflow: calls naming a
 * `workflow_id` go to the server's copy instead. Steering tools have nothing to steer here.
 */
import { Graph } from "../../../shared/graph/document.ts";
import { isDocumentOp } from "../../../shared/graph/ops.ts";
import { failure } from "../../../shared/protocol/errors.ts";
import type { Answer, UiTarget } from "../ui-client.ts";
import type { HostLink } from "./host-link.ts";

export function hostUiTarget(link: HostLink): UiTarget {
  return {
    openWorkflowId: () => undefined,
    async runnable() {
      const answer = await link.ask({ type: "ui_graph", id: "graph" });
      if (!answer.ok) return undefined;
      const graph = Graph.safeParse(answer.value);
      return graph.success ? { graph: graph.data } : undefined;
    },
    async apply(_runId, name, args): Promise<Answer> {
      if (!isDocumentOp(name)) {
        return {
          ok: false,
          error: failure(
            "capability_unavailable",
            `${name} is not served in this widget: the host page's editor takes the document tools (ui.getGraph, ui.addNode, ...) only.`,
          ),
        };
      }
      return link.ask({ type: "ui_call", id: "ui", capability: name, args });
    },
  };
}
