/** Specs of the `models` namespace: the language models the server's configured providers offer. Data only. */
import { z } from "zod";
import { defineSpec, type ModuleSpecs } from "../types.ts";

export const listModels = defineSpec({
  name: "list_models",
  method: "list",
  description:
    "List the language models the server's configured providers offer (ids as `openai:<model>` / `anthropic:<model>`), and which one is the default.",
  category: "read",
  input: z.object({}),
  output: z.strictObject({
    configured: z.boolean().describe("Whether any provider is configured on the server"),
    models: z.array(
      z.strictObject({
        id: z.string(),
        provider: z.enum(["openai", "anthropic"]),
        model: z.string(),
        default: z.boolean(),
      }),
    ),
    hint: z.string().optional().describe("When nothing is configured: what the operator must set"),
  }),
});

export const modelsModule: ModuleSpecs = {
  name: "models",
  description: "The language models the agent can use.",
  specs: [listModels],
};
