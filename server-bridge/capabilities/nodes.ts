/** Implementations of the `nodes` namespace: node-type metadata, and one node run on its own. */
import type { z } from "zod";
import { getNodeInfo, listNodes, runNode, searchNodes } from "../../shared/capabilities/specs/nodes.specs.ts";
import { closestNames } from "../../shared/capabilities/table.ts";
import { searchNodeTypes } from "../../shared/graph/catalog-search.ts";
import { familyOf, findNodeType, NODE_TYPES, nodeTypeIds } from "../../shared/graph/node-types.ts";
import { runNode as runOneNode } from "../engine/run-node.ts";
import { implement } from "./define.ts";
import { failed } from "./errors.ts";

/** A node on its own waits at most this long (a code node has its own, shorter deadline). */
const RUN_NODE_TIMEOUT_MS = 60_000;

const summary = (type: (typeof NODE_TYPES)[number]) => ({
  id: type.id,
  family: familyOf(type.id),
  title: type.title,
  description: type.description,
});

export default [
  implement(listNodes, async (_run, args) => {
    const types = args.family === undefined ? NODE_TYPES : NODE_TYPES.filter((t) => familyOf(t.id) === args.family);
    if (types.length === 0) {
      const families = [...new Set(NODE_TYPES.map((t) => familyOf(t.id)))];
      throw failed(`There is no node family "${args.family}". Families: ${families.join(", ")}.`);
    }
    return { nodes: types.map(summary), count: types.length };
  }),
  implement(searchNodes, async (_run, args) => {
    const hits = searchNodeTypes(args.query, args.limit);
    return {
      nodes: hits.flatMap((hit) => {
        const type = findNodeType(hit.id);
        return type ? [summary(type)] : [];
      }),
    };
  }),
  implement(getNodeInfo, async (_run, args) => {
    const type = findNodeType(args.node_type);
    if (!type) {
      const near = closestNames(args.node_type, nodeTypeIds());
      const hint = near.length ? ` Did you mean ${near.map((n) => `"${n}"`).join(" or ")}?` : "";
      throw failed(`There is no node type "${args.node_type}".${hint} nodes.list() lists them.`);
    }
    // The catalog's arrays are readonly; the output schema's type is the same shape, mutable.
    return { ...type, family: familyOf(type.id) } as z.input<typeof getNodeInfo.output>;
  }),
  implement(runNode, async (run, args) => ({
    node_type: args.node_type,
    outputs: await runOneNode(args.node_type, args.inputs, {
      signal: run.context.signal,
      invoke: (name, callArgs) => run.invoke(name, callArgs),
      timeoutMs: RUN_NODE_TIMEOUT_MS,
      code: run.services.jobs?.code.forUser(run.context.user_id),
    }),
  })),
];
