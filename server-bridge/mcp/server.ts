/**
 * One MCP server per MCP session (stdio: the one process; HTTP: one per `mcp-session-id`), bound to
 * one user and one agent session. It registers exactly two tools, `execute_code` and `view_image`, and
 * one resource, `nodetool://capabilities`; everything else is reached through actions. Handlers never
 * throw: the SDK would put a thrown message into the tool result, and host details must not leak.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Mode } from "../../shared/capabilities/types.ts";
import { Observation } from "../../shared/protocol/worker.ts";
import type { AppServices } from "../app-services.ts";
import type { LibraryDispatcher } from "../packs/index.ts";
import { CAPABILITIES_URI, capabilitiesDocument, SERVER_INFO } from "./catalog.ts";
import { executeCodeDescription } from "./description.ts";
import { ExecuteCodeInput, executeCode } from "./execute.ts";
import type { SandboxPool } from "./pool.ts";
import { McpAgentSession } from "./session.ts";
import { VIEW_IMAGE_DESCRIPTION, ViewImageInput, viewImage } from "./view-image.ts";

export interface McpServerOptions {
  app: AppServices;
  /** The user every call of this session acts for. */
  userId: string;
  mode: Mode;
  pool: SandboxPool;
  library: LibraryDispatcher;
  progressIntervalMs?: number;
}

const INSTRUCTIONS =
  "Act on the user's nodetool workspace (workflows, assets, collections, memory, jobs, nodes, web) by writing one JavaScript action for execute_code; its description is the contract. Use view_image to look at image assets. The resource nodetool://capabilities lists every capability with its input and output schemas; describe() inside an action gives their TypeScript declarations.";

export interface McpSessionServer {
  server: McpServer;
  agent: McpAgentSession;
  close(): Promise<void>;
}

/**
 * The text of a tool error the SDK made itself (arguments that failed the registered zod schema, an
 * unknown tool, anything a handler threw): always one of our codes, and nothing but the argument
 * issues is passed on.
 */
export function codedToolError(message: string): string {
  const clip = (text: string) => (text.length > 2000 ? `${text.slice(0, 2000)}...` : text);
  const invalid =
    /Input validation error: ([\s\S]*)$/.exec(message) ?? /(Invalid arguments for tool [\s\S]*)$/.exec(message);
  if (invalid) return `invalid_tool_arguments: ${clip(invalid[1] ?? "")}`;
  const missing = /Tool ([\s\S]{0,100}?) (not found|disabled)$/.exec(message);
  if (missing) return `invalid_call: No tool "${missing[1]}": the tools are execute_code and view_image.`;
  return "capability_failed: The tool failed; nothing more is known.";
}

/** The SDK builds these results in a private method; shadow it on this instance so every one is coded. */
function codeToolErrors(server: McpServer): void {
  const target = server as unknown as { createToolError?: (message: string) => CallToolResult };
  if (typeof target.createToolError !== "function")
    throw new Error("MCP SDK: createToolError is gone; update codeToolErrors");
  target.createToolError = (message: string) => ({
    content: [{ type: "text", text: codedToolError(message) }],
    isError: true,
  });
}

export function createMcpServer(options: McpServerOptions): McpSessionServer {
  const { app, library } = options;
  const agent = new McpAgentSession(app, options.userId, options.mode);
  const packs = library.packInfo(agent.packs);
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: {}, resources: {} },
    instructions: INSTRUCTIONS,
  });
  codeToolErrors(server);
  const description = executeCodeDescription({ mounted: agent.mounted, packs, timeoutMs: app.config.actionTimeoutMs });

  server.registerTool(
    "execute_code",
    {
      title: "Run an action",
      description,
      inputSchema: ExecuteCodeInput,
      // The observation, as structuredContent (also sent as JSON text for clients that read only text).
      outputSchema: Observation,
      annotations: { openWorldHint: true },
    },
    async (input, extra) =>
      executeCode(
        {
          app,
          agent,
          pool: options.pool,
          library,
          canElicit: () => Boolean(server.server.getClientCapabilities()?.elicitation),
          progressIntervalMs: options.progressIntervalMs ?? 5000,
        },
        input,
        extra,
      ),
  );

  server.registerTool(
    "view_image",
    {
      title: "View an image",
      description: VIEW_IMAGE_DESCRIPTION,
      inputSchema: ViewImageInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (input) => viewImage(app, options.userId, input),
  );

  server.registerResource(
    "capabilities",
    CAPABILITIES_URI,
    {
      title: "Capabilities",
      description: "Every capability module and library pack an action may import, with input and output JSON Schemas.",
      mimeType: "application/json",
    },
    async () => ({
      contents: [
        {
          uri: CAPABILITIES_URI,
          mimeType: "application/json",
          text: JSON.stringify(
            capabilitiesDocument({
              mounted: agent.mounted,
              packs,
              mode: agent.mode(),
              tools: [
                {
                  name: "execute_code",
                  description: "Run one JavaScript action in the sandbox (see its description).",
                },
                { name: "view_image", description: VIEW_IMAGE_DESCRIPTION },
              ],
            }),
          ),
        },
      ],
    }),
  );

  let closed = false;
  return {
    server,
    agent,
    close: async () => {
      if (closed) return;
      closed = true;
      await server.close().catch(() => undefined);
    },
  };
}
