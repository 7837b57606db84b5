/**
 * Our own `tools/list` and `tools/call` on the SDK's low-level server, so every tool answer is ours:
 * arguments are parsed with the tool's zod schema here (a failure is `invalid_tool_arguments` with
 * one issue per path), an unknown tool is `invalid_call`, and anything a handler throws is logged and
 * answered through `toFailure` (a fixed text, never the error's own). The SDK's McpServer would build
 * these results itself, from its own message texts.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { type ErrorCode, issueLines, toFailure } from "../../shared/protocol/errors.ts";
import type { ToolExtra } from "./elicit.ts";

export interface McpTool<TInput extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  input: TInput;
  output?: z.ZodObject;
  annotations?: Tool["annotations"];
  handler(input: z.infer<TInput>, extra: ToolExtra): Promise<CallToolResult>;
}

/** Declares one tool; the type parameter ties the handler's input to its schema. */
export function tool<TInput extends z.ZodObject>(definition: McpTool<TInput>): McpTool {
  // Adapter: the handler only ever receives what `input` parsed, so widening its parameter is safe.
  return definition as unknown as McpTool;
}

/** A tool error the model reads: its code first, then what to do. */
export function toolError(code: ErrorCode, message: string): CallToolResult {
  return { content: [{ type: "text", text: `${code}: ${message}` }], isError: true };
}

function clip(text: string, max = 2000): string {
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

function listing(definition: McpTool): Tool {
  return {
    name: definition.name,
    title: definition.title,
    description: definition.description,
    inputSchema: z.toJSONSchema(definition.input, { io: "input" }) as Tool["inputSchema"],
    ...(definition.output
      ? { outputSchema: z.toJSONSchema(definition.output, { io: "output" }) as Tool["outputSchema"] }
      : {}),
    ...(definition.annotations ? { annotations: definition.annotations } : {}),
  };
}

/** Serves `tools` on `server` (declaring the tools capability); call before `connect`. */
export function serveTools(
  server: Server,
  tools: readonly McpTool[],
  log: (message: string, err: unknown) => void,
): void {
  const byName = new Map(tools.map((definition) => [definition.name, definition]));
  const listed = tools.map(listing);
  const names = tools.map((definition) => definition.name).join(" and ");
  server.registerCapabilities({ tools: {} });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const definition = byName.get(request.params.name);
    if (!definition) {
      return toolError("invalid_call", `No tool "${clip(request.params.name, 100)}": the tools are ${names}.`);
    }
    const parsed = definition.input.safeParse(request.params.arguments ?? {});
    if (!parsed.success) {
      const issues = issueLines(parsed.error, "(arguments)");
      return toolError("invalid_tool_arguments", clip(`${definition.name}: ${issues.join("; ")}`));
    }
    try {
      return await definition.handler(parsed.data, extra);
    } catch (err) {
      log(`${definition.name} failed`, err);
      const { code, message } = toFailure(err);
      return toolError(code, message);
    }
  });
}
