/** What the two scripted model servers (fake-models.ts) share: the plan of one turn and the wire contract. */

/** One turn, planned: what the wire writers turn into frames. */
export interface TurnPlan {
  model: string;
  textChunks: string[];
  toolCalls: { id: string; name: string; argumentChunks: string[] }[];
  usage: { input_tokens: number; output_tokens: number };
  stop: "end" | "tool_calls" | "length";
  /** OpenAI: `stream_options.include_usage` was asked for. */
  includeUsage: boolean;
  /** The connection is cut after the text chunks: no closing frames. */
  cut: boolean;
}

/** What differs between the two providers' wires. */
export interface FakeWire {
  /** Path of the base URL the SDK is given ("/v1" or ""). */
  basePath: string;
  completionPath: string;
  /** The request's max output tokens, if it set one. */
  maxTokens(body: Record<string, unknown>): number | undefined;
  includeUsage(body: Record<string, unknown>): boolean;
  /** Why the provider would refuse this request (400), or undefined. */
  refuse(body: Record<string, unknown>): string | undefined;
  errorBody(status: number, message: string): unknown;
  modelList(ids: readonly string[]): unknown;
  toolCallId(seq: number): string;
  /** SSE frames: `head` goes at once, `body` after the delay. */
  frames(plan: TurnPlan): { head: string[]; body: string[] };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function sse(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}
