/**
 * The terminal's view of the local user's conversations, for finding the one to go on with (`--thread
 * id`, or `--thread last` for the newest): `--list` the newest, `--find "words"` those whose title or
 * messages hold the words, each with the words around where. The same search as the panel's `Find`.
 */
import { timeAgo } from "../../shared/protocol/durations.ts";
import type { ThreadView } from "../agent/threads.ts";
import type { AppServices } from "../app-services.ts";
import { LOCAL_USER } from "../auth/tokens.ts";

/** Conversations `--list` shows. */
const LISTED = 20;

function line(thread: ThreadView, now: number): string {
  const tokens = thread.usage.input_tokens + thread.usage.output_tokens;
  return `${thread.id}  ${timeAgo(thread.updated_at, now)}  ${thread.title}${tokens > 0 ? `  (${tokens} tokens)` : ""}`;
}

/** The newest conversations, or those holding `words`, as lines for the terminal (a line saying so when none). */
export async function conversationLines(app: AppServices, words?: string): Promise<string[]> {
  const now = Date.now();
  if (words === undefined) {
    const threads = await app.agent.threads.list(LOCAL_USER, LISTED);
    if (threads.length === 0) return ["There are no conversations yet: give a request to start one."];
    return [...threads.map((t) => line(t, now)), "Go on with one: --thread <id> (or --thread last for the newest)."];
  }
  const found = await app.agent.threads.search(LOCAL_USER, words);
  if (found.length === 0) return [`No conversation holds "${words}".`];
  return found.flatMap(({ thread, found: around }) => [line(thread, now), ...(around ? [`    ${around}`] : [])]);
}

/** `--thread last`: the newest conversation's id (undefined when there is none). */
export async function lastConversation(app: AppServices): Promise<string | undefined> {
  return (await app.agent.threads.list(LOCAL_USER, 1))[0]?.id;
}
