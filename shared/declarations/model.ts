/**
 * The declarations as data, for an editor: each module's specifier and exports, each capability's call
 * forms, argument keys and declaration text (what `describe()` answers for it). The server serves it at
 * `/types/index.json` next to the `.d.ts` text, both from the same generator (types-index.ts); the
 * page's `Action` editor completes and shows hovers from it. Zod schemas only: the page parses what it
 * receives, and never loads the generator.
 */
import { z } from "zod";

export const TypedArgument = z.object({
  key: z.string(),
  type: z.string(),
  optional: z.boolean(),
  doc: z.string(),
});

export const TypedExport = z.object({
  /** The wire name (`list_workflows`), also the module's named export. */
  name: z.string(),
  /** The short name on the namespace object (`list`). */
  method: z.string(),
  description: z.string(),
  category: z.string().optional(),
  /** `workflows.list(args?: ListWorkflowsArgs): Promise<ListWorkflowsResult>`, one per call form. */
  signatures: z.array(z.string()),
  args: z.array(TypedArgument),
  /** The declaration text `describe()` answers for it. */
  declaration: z.string(),
});
export type TypedExport = z.infer<typeof TypedExport>;

export const TypedModule = z.object({
  specifier: z.string(),
  /** The namespace object's name (`workflows`): a named export, and the default export. */
  name: z.string(),
  description: z.string(),
  exports: z.array(TypedExport),
});
export type TypedModule = z.infer<typeof TypedModule>;

export const TypesIndex = z.object({ modules: z.array(TypedModule) });
export type TypesIndex = z.infer<typeof TypesIndex>;
