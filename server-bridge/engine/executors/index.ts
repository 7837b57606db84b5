/** Every node type's executor, by node-type id. The engine's coverage test checks it against NODE_TYPES. */
import type { Executor } from "../types.ts";
import { flowExecutors } from "./flow.ts";
import { jsonExecutors } from "./json.ts";
import { mathExecutors } from "./math.ts";
import { mediaExecutors } from "./media.ts";
import { tableExecutors } from "./table.ts";
import { textExecutors } from "./text.ts";

export const EXECUTORS: ReadonlyMap<string, Executor> = new Map(
  Object.entries({
    ...textExecutors,
    ...mathExecutors,
    ...jsonExecutors,
    ...tableExecutors,
    ...flowExecutors,
    ...mediaExecutors,
  }),
);
