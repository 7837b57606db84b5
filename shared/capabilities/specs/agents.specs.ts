/** Specs of the `agents` namespace: a child agent for one subtask. Data only. */
import { z } from "zod";
import { defineSpec, type ModuleSpecs } from "../types.ts";

export const runSubtask = defineSpec({
  name: "run_subtask",
  method: "run",
  description:
    "Run a child agent on the server for one self-contained subtask: it writes and runs its own actions (through the same approvals as yours) and answers in text. It cannot start subtasks itself. read_only: it may only read.",
  category: "execute",
  positional: ["task"],
  needs: ["providers"],
  input: z.object({
    task: z.string().min(1).max(20_000).describe("What the child agent should do and answer, in full"),
    steps: z.number().int().min(1).max(20).default(10).describe("Most actions it may run (default 10)"),
    read_only: z.boolean().default(false).describe("Mount only reads: the child cannot change anything"),
    model: z.string().max(300).optional().describe("A model id from models.list(); the default when absent"),
  }),
  userMessage: (args) =>
    `Run a ${args.read_only ? "read-only " : ""}child agent (at most ${args.steps} steps) for: ${args.task.slice(0, 200)}`,
  output: z.strictObject({
    status: z.enum(["final", "step_cap", "budget", "stopped", "failed"]),
    answer: z.string(),
    steps: z.number().int(),
    usage: z.strictObject({ input_tokens: z.number().int(), output_tokens: z.number().int() }),
    thread_id: z.string().describe("The child's conversation, stored like any other"),
  }),
});

export const agentsModule: ModuleSpecs = {
  name: "agents",
  description: "Child agents for self-contained subtasks.",
  specs: [runSubtask],
};
