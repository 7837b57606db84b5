/**
 * Executors of the workflow, control, memory and code families: the ones that touch something beyond
 * their inputs. Effects go through `ctx.invoke` (the gate); waits stop on `ctx.signal`.
 */
import { type Executor, effect, NodeError } from "../types.ts";

/** Resolves after `ms`, or rejects with a `cancelled` NodeError as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new NodeError("Stopped before the wait began.", "cancelled"));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new NodeError("Stopped while waiting.", "cancelled"));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

export const flowExecutors: Record<string, Executor> = {
  "workflow.input": (inputs, ctx) => {
    const name = inputs.name as string;
    if (Object.hasOwn(ctx.workflowInputs, name)) return { output: ctx.workflowInputs[name] };
    if (inputs.default !== undefined) return { output: inputs.default };
    throw new NodeError(
      `workflow.input "${name}" has no value: pass inputs: { ${JSON.stringify(name)}: ... } when running the workflow, or fill in its "default".`,
    );
  },
  // Recorded on the node, not a handle: the engine reads it into the job's outputs.<name>.
  "workflow.output": (inputs) => ({ value: inputs.value }),

  "control.delay": async (inputs, ctx) => {
    await sleep(inputs.ms as number, ctx.signal);
    return { output: inputs.value };
  },

  "memory.save": async (inputs, ctx) => ({
    output: await effect(ctx, "save_memory", { content: inputs.content, tags: inputs.tags }),
  }),
  "memory.search": async (inputs, ctx) => {
    const found = (await effect(ctx, "search_memories", { query: inputs.query, limit: inputs.limit })) as {
      memories: unknown[];
    };
    return { output: found.memories };
  },

  // The contract (what data.code may be, what the function gets and returns) is in ../code-source.ts.
  "code.run": async (inputs, ctx) => {
    if (!ctx.code) {
      throw new NodeError(
        "code.run needs the server-side QuickJS sandbox, which this host does not provide. Use math.expression, text.template or the json and list nodes instead.",
        "capability_unavailable",
      );
    }
    const output = await ctx.code.run({
      code: inputs.code as string,
      input: inputs.input,
      timeoutMs: inputs.timeout_ms as number,
      signal: ctx.signal,
    });
    return { output };
  },
};
