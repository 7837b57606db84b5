/**
 * What the provider tests share: the two kinds of provider (scripted server + adapter), a request
 * builder, an event collector that checks every event against the ModelEvent schema, and scripted
 * servers that close after each test, with a leak check on sockets at the end of the file.
 */
import { afterAll, afterEach } from "vitest";
import { createAnthropicProvider } from "../../server-bridge/agent/providers/anthropic.ts";
import { createOpenAIProvider } from "../../server-bridge/agent/providers/openai.ts";
import type { ProviderAdapter, ProviderConfig, ProviderRequest } from "../../server-bridge/agent/providers/types.ts";
import { type AgentMessage, ModelEvent } from "../../shared/agent/messages.ts";
import {
  type FakeModelServer,
  type ScriptedTurn,
  startFakeAnthropic,
  startFakeOpenAI,
} from "../support/fake-models.ts";

const OPENAI_KEY = "sk-proj-Zq8fakeKeyForTests0123456789abcdWXYZ";
const ANTHROPIC_KEY = "sk-ant-api03-fakeKeyForTests0123456789abcdQRST";

export interface Kind {
  name: "openai" | "anthropic";
  start(options?: { script?: ScriptedTurn[]; models?: string[] }): Promise<FakeModelServer>;
  adapter(config: ProviderConfig): ProviderAdapter;
  key: string;
  keyVariable: string;
  model: string;
}

export const KINDS: Kind[] = [
  {
    name: "openai",
    start: startFakeOpenAI,
    adapter: createOpenAIProvider,
    key: OPENAI_KEY,
    keyVariable: "OPENAI_API_KEY",
    model: "gpt-fake-1",
  },
  {
    name: "anthropic",
    start: startFakeAnthropic,
    adapter: createAnthropicProvider,
    key: ANTHROPIC_KEY,
    keyVariable: "ANTHROPIC_API_KEY",
    model: "claude-fake-1",
  },
];

export const TOOLS: ProviderRequest["tools"] = [
  {
    name: "execute_code",
    description: "Run one JavaScript action.",
    input_schema: { type: "object", properties: { code: { type: "string" } }, required: ["code"] },
  },
  {
    name: "view_image",
    description: "Look at an image.",
    input_schema: { type: "object", properties: { image_id: { type: "string" } }, required: ["image_id"] },
  },
];

export const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

export const userSays = (text: string): AgentMessage => ({ role: "user", content: [{ type: "text", text }] });

export function request(
  kind: Kind,
  messages: AgentMessage[],
  overrides: Partial<ProviderRequest> = {},
): ProviderRequest {
  return {
    model: kind.model,
    system: "You are a test assistant.",
    messages,
    tools: TOOLS,
    maxOutputTokens: 1000,
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** Every event, each checked against the ModelEvent schema (a message over 2000 characters fails). */
export async function collect(stream: AsyncIterable<unknown>): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of stream) events.push(ModelEvent.parse(event));
  return events;
}

export const textOf = (events: ModelEvent[]) => events.flatMap((e) => (e.type === "text" ? [e.delta] : [])).join("");
export const errorsOf = (events: ModelEvent[]) => events.filter((e) => e.type === "error");

/**
 * Scripted servers for this test file: each closes after its test; the file ends with a leak check
 * (no socket left open by an adapter or a server). Call once at the top of the file.
 */
export function scriptedServers(): (
  kind: Kind,
  script?: ScriptedTurn[],
  models?: string[],
) => Promise<FakeModelServer> {
  const open: FakeModelServer[] = [];
  const sockets = () => process.getActiveResourcesInfo().filter((name) => name.startsWith("TCP")).length;
  const socketsBefore = sockets();
  afterEach(async () => {
    await Promise.all(open.splice(0).map((fake) => fake.close()));
  });
  afterAll(async () => {
    await until(() => sockets() <= socketsBefore);
  });
  return async (kind, script = [], models) => {
    const fake = await kind.start({ script, ...(models ? { models } : {}) });
    open.push(fake);
    return fake;
  };
}

/** A bounded wait for a condition the fake server makes true. */
export async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("the condition did not come true");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
