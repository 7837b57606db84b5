/**
 * The messages between the page and the type-check worker (typecheck.worker.ts), as zod schemas: the
 * page asks to check one action against the declarations it fetched (the worker may not reach the
 * network: its CSP forbids it), the worker answers the problems found, or why it could not check.
 */
import { z } from "zod";

export const CheckRequest = z.object({
  type: z.literal("check"),
  id: z.number().int(),
  code: z.string(),
  declarations: z.string(),
});
export type CheckRequest = z.infer<typeof CheckRequest>;

export const TypeProblem = z.object({
  line: z.number().int(),
  column: z.number().int(),
  from: z.number().int(),
  to: z.number().int(),
  message: z.string(),
  severity: z.enum(["error", "warning"]),
});
/** One problem at a place in the action: 1-based line and column, and the offsets it spans. */
export type TypeProblem = z.infer<typeof TypeProblem>;

export const CheckResponse = z.discriminatedUnion("type", [
  z.object({ type: z.literal("checked"), id: z.number().int(), problems: z.array(TypeProblem) }),
  z.object({ type: z.literal("failed"), id: z.number().int(), message: z.string() }),
]);
export type CheckResponse = z.infer<typeof CheckResponse>;
