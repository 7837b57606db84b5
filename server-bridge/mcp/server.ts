/**
 * One MCP server per MCP session (stdio: the one process; HTTP: one per `mcp-session-id`), bound to
 * one user and one agent session. It registers exactly two tools, `execute_code` and `view_image`, and
 * one resource, `nodetool://capabilities`; everything else is reached through actions. Tool answers
 * are all ours (mcp/tools.ts): coded, and never carrying a thrown error's own text.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ExecuteCodeInput, VIEW_IMAGE_DESCRIPTION, ViewImageInput } from "../../shared/agent/tools.ts";
import type { Mode } from "../../shared/capabilities/types.ts";
import { Observation } from "../../shared/protocol/worker.ts";
import type { AppServices } from "../app-services.ts";
import type { Caller } from "../auth/caller.ts";
import type { LibraryDispatcher } from "../packs/index.ts";
import { CAPABILITIES_URI, capabilitiesDocument, SERVER_INFO } from "./catalog.ts";
import { executeCodeDescription } from "./description.ts";
import { canAskInForm } from "./elicit.ts";
import { executeCode } from "./execute.ts";
import { McpAgentSession } from "./session.ts";
import { serveTools, tool } from "./tools.ts";
import { viewImage } from "./view-image.ts";

export interface McpServerOptions {
  app: AppServices;
  /** Who every call of this session acts for (the MCP token's owner, or the local user over stdio). */
  caller: Caller;
  mode: Mode;
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

export async function createMcpServer(options: McpServerOptions): Promise<McpSessionServer> {
  const { app, library } = options;
  const agent = await McpAgentSession.open(app, options.caller.user, options.mode);
  const packs = library.packInfo(agent.packs);
  // Tools are served by our own handlers (mcp/tools.ts), so McpServer is told only of resources.
  const server = new McpServer(SERVER_INFO, { capabilities: { resources: {} }, instructions: INSTRUCTIONS });
  const description = executeCodeDescription({ mounted: agent.mounted, packs, timeoutMs: app.config.actionTimeoutMs });

  serveTools(
    server.server,
    [
      tool({
        name: "execute_code",
        title: "Run an action",
        description,
        input: ExecuteCodeInput,
        // The observation, as structuredContent (also sent as JSON text for clients that read only text).
        output: Observation,
        annotations: { openWorldHint: true },
        handler: (input, extra) =>
          executeCode(
            {
              app,
              agent,
              library,
              canElicit: () => canAskInForm(server.server.getClientCapabilities()),
              progressIntervalMs: options.progressIntervalMs ?? 5000,
            },
            input,
            extra,
          ),
      }),
      tool({
        name: "view_image",
        title: "View an image",
        description: VIEW_IMAGE_DESCRIPTION,
        input: ViewImageInput,
        annotations: { readOnlyHint: true, openWorldHint: false },
        handler: async (input) => viewImage(app, options.caller.user, input),
      }),
    ],
    (message, err) => app.log("error", `mcp: ${message}`, err),
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
              mode: await agent.mode(),
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
