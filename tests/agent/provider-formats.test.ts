/**
 * The conversation as each provider receives it, checked on the scripted servers, which answer 400
 * for what the real APIs refuse (a tool call without its result, a tool message with an image, an
 * empty text block, a tool id out of pattern): images from the person and from tools, tool calls,
 * error results, ids from another provider, what the editor showed as a message was sent, and whether a
 * key is sent.
 */
import { describe, expect, it } from "vitest";
import { chatRequest, createOpenAIProvider } from "../../server-bridge/agent/providers/openai.ts";
import type { AgentMessage } from "../../shared/agent/messages.ts";
import {
  collect,
  errorsOf,
  KINDS,
  type Kind,
  PNG,
  request,
  scriptedServers,
  TOOLS,
  textOf,
  userSays,
} from "./provider-kit.ts";

const fakeFor = scriptedServers();

/** A conversation with everything a thread holds: images from the person and from a tool, two calls, an error result. */
const CONVERSATION: AgentMessage[] = [
  {
    role: "user",
    content: [
      { type: "text", text: "What is in this picture?" },
      { type: "image", media_type: "image/png", data: PNG },
    ],
  },
  {
    role: "assistant",
    text: "Let me look closer.",
    tool_calls: [
      { id: "call_a", name: "view_image", arguments: '{"image_id":"ast_1"}' },
      { id: "call_b", name: "execute_code", arguments: '{"code": "oops' },
    ],
  },
  {
    role: "tool",
    tool_call_id: "call_a",
    name: "view_image",
    content: [{ type: "image", media_type: "image/png", data: PNG }],
  },
  {
    role: "tool",
    tool_call_id: "call_b",
    name: "execute_code",
    content: [{ type: "text", text: "invalid_tool_arguments: the arguments are not JSON" }],
    is_error: true,
  },
  // Sent from the editor: what it showed follows the person's text.
  { role: "user", content: [{ type: "text", text: "And now?" }], context: "The editor has no workflow open." },
];

const SENT_WITH = "(Sent from the editor. The editor has no workflow open.)";

describe("the conversation in OpenAI's format", () => {
  const kind = KINDS[0] as Kind;

  it("carries user images as image_url parts and a tool's images in a user message after the tool messages", async () => {
    const fake = await fakeFor(kind, [{ text: "A red pixel." }]);
    const events = await collect(
      kind.adapter({ baseUrl: fake.url, apiKey: kind.key }).stream(request(kind, CONVERSATION)),
    );
    expect(errorsOf(events)).toEqual([]);
    const image = { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } };
    expect(fake.requests[0]).toMatchObject({
      model: "gpt-fake-1",
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 1000,
      tools: [
        {
          type: "function",
          function: {
            name: "execute_code",
            description: "Run one JavaScript action.",
            parameters: TOOLS[0]?.input_schema,
          },
        },
        { type: "function", function: { name: "view_image" } },
      ],
      messages: [
        { role: "system", content: "You are a test assistant." },
        { role: "user", content: [{ type: "text", text: "What is in this picture?" }, image] },
        {
          role: "assistant",
          content: "Let me look closer.",
          tool_calls: [
            { id: "call_a", type: "function", function: { name: "view_image", arguments: '{"image_id":"ast_1"}' } },
            { id: "call_b", type: "function", function: { name: "execute_code", arguments: '{"code": "oops' } },
          ],
        },
        { role: "tool", tool_call_id: "call_a", content: "The image is in the next message." },
        { role: "tool", tool_call_id: "call_b", content: "invalid_tool_arguments: the arguments are not JSON" },
        { role: "user", content: [{ type: "text", text: "The image from the view_image result (call_a):" }, image] },
        { role: "user", content: `And now?\n\n${SENT_WITH}` },
      ],
    });
  });

  it("asks OpenAI itself for max_completion_tokens, which its reasoning models require", () => {
    const body = chatRequest(request(kind, [userSays("hi")]), true);
    expect(body).toMatchObject({ max_completion_tokens: 1000 });
    expect(body).not.toHaveProperty("max_tokens");
  });

  it("sends no Authorization header when no key is configured (a local server)", async () => {
    const fake = await fakeFor(kind, [{ text: "ok" }]);
    const events = await collect(createOpenAIProvider({ baseUrl: fake.url }).stream(request(kind, [userSays("hi")])));
    expect(textOf(events)).toBe("ok");
    expect(fake.headers[0]).not.toHaveProperty("authorization");
  });
});

describe("the conversation in Anthropic's format", () => {
  const kind = KINDS[1] as Kind;

  it("carries images as base64 blocks and tool results (images, is_error) first in the next user turn", async () => {
    const fake = await fakeFor(kind, [{ text: "A red pixel." }]);
    const events = await collect(
      kind.adapter({ baseUrl: fake.url, apiKey: kind.key }).stream(request(kind, CONVERSATION)),
    );
    expect(errorsOf(events)).toEqual([]);
    const image = { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } };
    expect(fake.requests[0]).toEqual({
      model: "claude-fake-1",
      max_tokens: 1000,
      system: "You are a test assistant.",
      stream: true,
      tools: TOOLS.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.input_schema })),
      messages: [
        { role: "user", content: [{ type: "text", text: "What is in this picture?" }, image] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Let me look closer." },
            { type: "tool_use", id: "call_a", name: "view_image", input: { image_id: "ast_1" } },
            { type: "tool_use", id: "call_b", name: "execute_code", input: { unparsed_arguments: '{"code": "oops' } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_a", content: [image] },
            {
              type: "tool_result",
              tool_use_id: "call_b",
              content: [{ type: "text", text: "invalid_tool_arguments: the arguments are not JSON" }],
              is_error: true,
            },
            { type: "text", text: "And now?" },
            { type: "text", text: SENT_WITH },
          ],
        },
      ],
    });
  });

  it("keeps tool ids from another provider within the characters Anthropic accepts", async () => {
    const fake = await fakeFor(kind, [{ text: "ok" }]);
    const messages: AgentMessage[] = [
      userSays("go"),
      { role: "assistant", text: "", tool_calls: [{ id: "call:1/x", name: "execute_code", arguments: "{}" }] },
      { role: "tool", tool_call_id: "call:1/x", name: "execute_code", content: [] },
    ];
    const events = await collect(kind.adapter({ baseUrl: fake.url, apiKey: kind.key }).stream(request(kind, messages)));
    expect(errorsOf(events)).toEqual([]);
    expect(fake.requests[0]).toMatchObject({
      messages: [
        {},
        { content: [{ type: "tool_use", id: "call_1_x", input: {} }] },
        {
          content: [{ type: "tool_result", tool_use_id: "call_1_x", content: [{ type: "text", text: "(no output)" }] }],
        },
      ],
    });
  });
});

describe.each(KINDS)("the scripted $name server", (kind) => {
  it("sends the key to the provider", async () => {
    const fake = await fakeFor(kind, [{ text: "ok" }]);
    await collect(kind.adapter({ baseUrl: fake.url, apiKey: kind.key }).stream(request(kind, [userSays("hi")])));
    expect(fake.headers[0]?.authorization).toBe(`Bearer ${kind.key}`);
  });

  it("refuses a tool call left without its result, as the real API does (the format checks above mean something)", async () => {
    const fake = await fakeFor(kind, [{ text: "never" }]);
    const messages: AgentMessage[] = [
      userSays("go"),
      { role: "assistant", text: "", tool_calls: [{ id: "call_lonely", name: "execute_code", arguments: "{}" }] },
      userSays("and?"),
    ];
    const events = await collect(kind.adapter({ baseUrl: fake.url, apiKey: kind.key }).stream(request(kind, messages)));
    expect(events).toEqual([
      {
        type: "error",
        code: "capability_failed",
        message: expect.stringMatching(/refused the request \(400: .*call_lonely/),
      },
    ]);
  });
});
