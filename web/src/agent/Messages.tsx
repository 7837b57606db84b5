/**
 * The conversation's messages as the panel shows them: the person's (their lines kept), the agent's
 * (its Markdown, its steps as cards, why a turn ended early, its tokens, `Copy` under an answer), and
 * what a tool gave back (images inline). Each entry renders again only when it changed.
 */
import { Fragment, memo } from "react";
import type { AgentMessage, ContentPart, ToolCall } from "../../../shared/agent/messages.ts";
import { readToolCall } from "../../../shared/agent/tools.ts";
import { CopyButton } from "./CopyButton.tsx";
import { Markdown } from "./Markdown.tsx";
import { StepCard } from "./StepCard.tsx";
import type { Entry } from "./useAgent.ts";

type ToolResult = Extract<AgentMessage, { role: "tool" }>;

/** An answer of the agent's own words (not a step, not a cut-off turn): it can be copied. */
const answered = (message: Extract<AgentMessage, { role: "assistant" }>) =>
  message.text.trim() !== "" && message.tool_calls.length === 0 && !message.interrupted;

/** The conversation from `entries[from]` on (log-window.ts); keys stay the entries' own positions. */
export function Messages({
  entries,
  from,
  active,
}: {
  entries: readonly Entry[];
  from: number;
  active: string | undefined;
}) {
  const shown = entries.slice(from);
  const results = new Map<string, ToolResult>();
  for (const { message } of shown) if (message.role === "tool") results.set(message.tool_call_id, message);
  return (
    <>
      {shown.map((entry, offset) => {
        const i = from + offset;
        const { message } = entry;
        if (message.role === "tool") return null;
        const steps = message.role === "assistant" ? message.tool_calls : [];
        return (
          <MessageEntry
            // Messages are positional: a key is the message's place in the whole thread.
            key={i}
            entry={entry}
            results={steps.map((call) => results.get(call.id))}
            running={steps.map((call) => active === call.id)}
          />
        );
      })}
    </>
  );
}

interface MessageEntryProps {
  entry: Entry;
  /** Per tool call of an assistant message, in order: its result so far, and whether it runs now. */
  results: readonly (ToolResult | undefined)[];
  running: readonly boolean[];
}

const same = <T,>(a: readonly T[], b: readonly T[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * One message of the conversation. A long conversation re-renders on every streamed delta and step:
 * an entry renders again only when it, or its steps' results or running state, changed.
 */
const MessageEntry = memo(
  function MessageEntry({ entry: { message, usage }, results, running }: MessageEntryProps) {
    switch (message.role) {
      case "user":
        return (
          <div className="user">
            <Parts parts={message.content} />
            {message.context ? (
              <details className="sent-with">
                <summary>Sent with what the editor showed</summary>
                <p>{message.context}</p>
              </details>
            ) : null}
          </div>
        );
      case "assistant": {
        const tokens = usage && usage.input_tokens + usage.output_tokens > 0 ? usage : undefined;
        const copyable = answered(message);
        return (
          <div className="assistant">
            {message.text ? <Markdown text={message.text} /> : null}
            {message.tool_calls.map((call, i) => (
              <Step key={call.id} call={call} result={results[i]} running={running[i] ?? false} />
            ))}
            {/* Why the turn ended says more than that it did not finish: one line, not both. */}
            {message.interrupted && !message.ended ? (
              <p className="status failed">This turn was interrupted before it finished.</p>
            ) : null}
            {message.ended ? <p className="status failed turn-end">{message.ended.message}</p> : null}
            {tokens || copyable ? (
              <p className="hint message-foot">
                {tokens ? `${tokens.input_tokens} in + ${tokens.output_tokens} out tokens ` : null}
                {copyable ? <CopyButton text={message.text} /> : null}
              </p>
            ) : null}
          </div>
        );
      }
      case "tool":
        return null;
      default: {
        const never: never = message;
        return never;
      }
    }
  },
  (before, after) =>
    before.entry === after.entry && same(before.results, after.results) && same(before.running, after.running),
);

function Step({ call, result, running }: { call: ToolCall; result: ToolResult | undefined; running: boolean }) {
  const read = readToolCall(call.name, call.arguments);
  const input = "error" in read ? undefined : read.input;
  return (
    <StepCard
      call={call}
      input={input}
      result={result}
      running={running}
      parts={<Parts parts={result?.content ?? []} />}
    />
  );
}

export function Parts({ parts }: { parts: readonly ContentPart[] }) {
  return (
    <>
      {parts.map((part, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: parts are positional
        <Fragment key={i}>
          <Part part={part} />
        </Fragment>
      ))}
    </>
  );
}

function Part({ part }: { part: ContentPart }) {
  switch (part.type) {
    case "text":
      return <p>{part.text}</p>;
    case "image":
      return (
        <img
          className="step-image"
          alt="what the agent looked at"
          src={`data:${part.media_type};base64,${part.data}`}
        />
      );
    case "image_request":
      return <p className="status">Showing {part.request.image_id.slice(0, 80)} to the agent…</p>;
    default: {
      const never: never = part;
      return never;
    }
  }
}
