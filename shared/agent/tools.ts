/**
 * The agent's two tools, `execute_code` and `view_image`: their input schemas and the view_image text,
 * one source for MCP (server-bridge/mcp) and the CodeAct loop; `execute_code`'s description is the
 * action contract with the compact catalog (server-bridge/mcp/description.ts). Also how the loop reads
 * a tool call the model wrote: arguments that are not JSON, an unknown tool, an empty `code`, or code
 * wrapped in markdown fences each become a coded tool error (or are mended), never a crash.
 */
import { z } from "zod";
import { type FailurePayload, issueLines } from "../protocol/errors.ts";

export const EXECUTE_CODE = "execute_code";
export const VIEW_IMAGE = "view_image";
export const TOOL_NAMES = [EXECUTE_CODE, VIEW_IMAGE] as const;

export const ExecuteCodeInput = z.object({
  title: z.string().max(200).optional().describe("A short title for the action"),
  risk: z
    .enum(["low", "high"])
    .describe('"high" when the action changes or deletes the user\'s data or reaches outside; otherwise "low"'),
  description: z.string().min(1).max(4000).describe("What the action does and why, in a sentence or two"),
  code: z.string().min(1).max(1_000_000).describe("The action: one JavaScript ES module"),
});
export type ExecuteCodeInput = z.infer<typeof ExecuteCodeInput>;

/** Decoded bytes a data: URI may carry. */
export const DATA_URI_MAX_BYTES = 8 * 1024 * 1024;

export const ViewImageInput = z.object({
  image_id: z
    .string()
    .min(1)
    .max(Math.ceil((DATA_URI_MAX_BYTES * 4) / 3) + 100)
    .describe('An image asset: its id ("ast_..."), "asset://<id>", or a data: URI (base64, at most 8 MiB)'),
  question: z.string().max(2000).optional().describe("What you want to find out from the picture (echoed back)"),
  detail: z.enum(["low", "high"]).optional().describe("low: longest side at most 768 px; high (default): 2048 px"),
  region: z
    .object({
      x: z.number().int().min(0),
      y: z.number().int().min(0),
      width: z.number().int().min(1),
      height: z.number().int().min(1),
    })
    .optional()
    .describe("Crop to this rectangle first, in the source image's pixels (origin top left)"),
});
export type ViewImageInput = z.infer<typeof ViewImageInput>;

export const VIEW_IMAGE_DESCRIPTION =
  "Show an image to you: an image asset by id (the {$asset} an action returned, e.g. from assets.save or assets.list) or a data: URI. Optional region crops in source pixels; detail low caps the longest side at 768 px. No file paths or remote URLs: fetch or save them as assets with execute_code first.";

export type ReadToolCall =
  | { tool: typeof EXECUTE_CODE; input: ExecuteCodeInput }
  | { tool: typeof VIEW_IMAGE; input: ViewImageInput }
  | { error: FailurePayload };

/** ```js ... ``` (or ```javascript, ```ts, bare ```) around the whole code: the fences are dropped. */
export function stripFences(code: string): string {
  const match = /^\s*```[\w-]*[^\S\n]*\n([\s\S]*?)\n?```\s*$/.exec(code);
  return match ? (match[1] ?? "") : code;
}

/** Reads one tool call as the model wrote it. */
export function readToolCall(name: string, argumentsText: string): ReadToolCall {
  if (name !== EXECUTE_CODE && name !== VIEW_IMAGE) {
    return {
      error: {
        code: "invalid_call",
        message: `There is no tool "${name.slice(0, 100)}". The tools are execute_code (run one JavaScript action) and view_image (look at an image asset).`,
      },
    };
  }
  let raw: unknown;
  try {
    raw = argumentsText.trim() === "" ? {} : JSON.parse(argumentsText);
  } catch {
    return {
      error: {
        code: "invalid_tool_arguments",
        message: `The arguments of ${name} are not valid JSON (${argumentsText.length} characters). Send one JSON object, e.g. {"risk": "low", "description": "...", "code": "export default 1;"}.`,
      },
    };
  }
  if (name === VIEW_IMAGE) {
    const parsed = ViewImageInput.safeParse(raw);
    if (parsed.success) return { tool: VIEW_IMAGE, input: parsed.data };
    const list = issueLines(parsed.error, "(args)");
    return {
      error: {
        code: "invalid_tool_arguments",
        message: `Invalid arguments for view_image: ${list.join("; ")}`,
        issues: list,
      },
    };
  }
  // A model that sends only the code (or forgets the bookkeeping fields) is read kindly.
  const fields = typeof raw === "object" && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const code = typeof fields.code === "string" ? stripFences(fields.code) : fields.code;
  if (typeof code === "string" && code.trim() === "") {
    return {
      error: {
        code: "invalid_tool_arguments",
        message: "execute_code got an empty code: write the action (one ES module whose export default is the result).",
        issues: ["code: empty"],
      },
    };
  }
  const parsed = ExecuteCodeInput.safeParse({
    risk: "low",
    description: typeof fields.title === "string" && fields.title !== "" ? fields.title : "An action.",
    ...fields,
    code,
  });
  if (parsed.success) return { tool: EXECUTE_CODE, input: parsed.data };
  const list = issueLines(parsed.error, "(args)");
  return {
    error: {
      code: "invalid_tool_arguments",
      message: `Invalid arguments for execute_code: ${list.join("; ")}`,
      issues: list,
    },
  };
}
