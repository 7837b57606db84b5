/**
 * A conversation as Markdown, for a person to keep or share (the panel's `Export`): each request, the
 * agent's text, each step (the action's code in a `js` block) and what came back (ok or its error code,
 * the result in a `json` block, the logs, the capability calls), and why a request ended early.
 * Images are named, never embedded.
 */
import { timeWithWait } from "../protocol/durations.ts";
import type { AgentMessage, ContentPart } from "./messages.ts";
import { readToolCall } from "./tools.ts";

/** A fenced block that holds `text` whatever backticks it has (the fence is longer than any run in it). */
export function fenced(text: string, language = ""): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${language}\n${text.replace(/\n$/, "")}\n${fence}`;
}

function partText(part: ContentPart): string {
  switch (part.type) {
    case "text":
      return part.text;
    case "image":
      return "_(an image)_";
    case "image_request":
      return `_(image ${part.request.image_id})_`;
    default: {
      const never: never = part;
      return never;
    }
  }
}

export function transcriptMarkdown(title: string, messages: readonly AgentMessage[]): string {
  const out: string[] = [`# ${title}`];
  let agentHeading = false;
  for (const message of messages) {
    if (message.role === "user") {
      out.push("## You", message.content.map(partText).join("\n\n"));
      agentHeading = false;
      continue;
    }
    if (!agentHeading) {
      out.push("## Agent");
      agentHeading = true;
    }
    if (message.role === "assistant") {
      if (message.text.trim() !== "") out.push(message.text.trim());
      for (const call of message.tool_calls) {
        const read = readToolCall(call.name, call.arguments);
        if ("error" in read)
          out.push(`**${call.name.slice(0, 100) || "A tool call"}** (not run: ${read.error.message})`);
        else if ("code" in read.input) {
          out.push(`**Step: ${read.input.title ?? read.input.description}**`, fenced(read.input.code, "js"));
        } else out.push(`**Looked at** ${read.input.image_id.slice(0, 200)}`);
      }
      if (message.ended) out.push(`_${message.ended.message}_`);
      else if (message.interrupted) out.push("_This turn was interrupted before it finished._");
      continue;
    }
    const seen = message.observation;
    if (!seen) {
      const text = message.content.map(partText).join("\n\n");
      if (text !== "") out.push(message.is_error ? `Tool error: ${text}` : text);
      continue;
    }
    const time = timeWithWait(seen.duration_ms, seen.approval_ms);
    out.push(seen.ok ? `ok in ${time}` : `${seen.error?.code ?? "failed"} in ${time}: ${seen.error?.message ?? ""}`);
    if (seen.ok && seen.result !== undefined) out.push(fenced(JSON.stringify(seen.result, null, 2), "json"));
    if (seen.logs.length > 0) out.push(`Logs:\n\n${fenced(seen.logs.join("\n"))}`);
    if (seen.calls.length > 0) {
      const calls = seen.calls.map(
        (c) => `- ${c.capability}: ${c.ok ? "ok" : "failed"} (${timeWithWait(c.ms, c.approval_ms)})`,
      );
      out.push(calls.join("\n"));
    }
  }
  return `${out.join("\n\n")}\n`;
}
