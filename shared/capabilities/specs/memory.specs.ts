/** Specs of the `memory` namespace (durable, per user): data only. */
import { z } from "zod";
import { DeletedOut, IsoTime } from "../outputs.ts";
import { defineSpec, type ModuleSpecs } from "../types.ts";

const Memory = z
  .strictObject({ id: z.string(), content: z.string(), tags: z.array(z.string()), created_at: IsoTime })
  .meta({ id: "Memory", description: "A remembered item" });

export const saveMemory = defineSpec({
  name: "save_memory",
  method: "save",
  description: "Remember a piece of text for later actions, with optional tags.",
  category: "write",
  positional: ["content"],
  input: z.object({
    content: z.string().min(1).max(20_000),
    tags: z.array(z.string().min(1).max(50)).max(20).default([]),
  }),
  userMessage: (args) => `Remember: ${args.content.slice(0, 80)}`,
  output: Memory,
});

export const listMemories = defineSpec({
  name: "list_memories",
  method: "list",
  description: "List remembered items, newest first.",
  category: "read",
  input: z.object({
    limit: z.number().int().min(1).max(500).default(50),
    tag: z.string().max(50).optional(),
  }),
  output: z.strictObject({ memories: z.array(Memory) }),
});

export const searchMemories = defineSpec({
  name: "search_memories",
  method: "search",
  description: "Full-text search over remembered items, best match first.",
  category: "read",
  positional: ["query"],
  input: z.object({
    query: z.string().min(1).max(500),
    limit: z.number().int().min(1).max(100).default(10),
  }),
  output: z.strictObject({
    memories: z.array(z.strictObject({ ...Memory.shape, score: z.number().describe("Higher is a better match") })),
  }),
});

export const deleteMemory = defineSpec({
  name: "delete_memory",
  method: "delete",
  description: "Forget one remembered item.",
  category: "write",
  positional: ["memory_id"],
  input: z.object({ memory_id: z.string().min(1).max(200) }),
  userMessage: (args) => `Forget memory ${args.memory_id}`,
  output: DeletedOut,
});

export const memoryModule: ModuleSpecs = {
  name: "memory",
  description: "Durable memory: text the user's agent keeps across actions.",
  specs: [saveMemory, listMemories, searchMemories, deleteMemory],
};
