/** Specs of the `shared` namespace: results kept for the length of one run. Data only. */
import { z } from "zod";
import { IsoTime, UserJson } from "../outputs.ts";
import { defineSpec, type ModuleSpecs } from "../types.ts";

const Key = z.string().min(1).max(200);

export const listShared = defineSpec({
  name: "list_shared",
  method: "list",
  description: "List the results shared in this run: key, size, shared_at.",
  category: "read",
  input: z.object({}),
  output: z.strictObject({
    results: z.array(z.strictObject({ key: z.string(), size: z.number().int(), shared_at: IsoTime })),
  }),
});

export const readShared = defineSpec({
  name: "read_shared",
  method: "read",
  description: "Read a result shared earlier in this run by its key.",
  category: "read",
  positional: ["key"],
  input: z.object({ key: Key }),
  output: z.strictObject({ key: z.string(), value: UserJson }),
});

export const shareResult = defineSpec({
  name: "share_result",
  method: "share",
  description: "Keep a JSON value under a key for later calls in this run. Gone when the run ends.",
  category: "read",
  positional: ["key"],
  input: z.object({ key: Key, value: z.unknown() }),
  output: z.strictObject({ key: z.string(), size: z.number().int().describe("Characters of JSON kept") }),
});

export const sharedModule: ModuleSpecs = {
  name: "shared",
  description: "Scratch space for one run: values kept between actions of the same run.",
  specs: [listShared, readShared, shareResult],
};
