/**
 * The agent's standing instructions (the system prompt every provider call carries) and how a host
 * sends only what is new to a server that keeps the conversation (`appendSince`).
 */
import type { AgentMessage } from "./messages.ts";

export const AGENT_SYSTEM_PROMPT = `You are the nodetool agent, working in the user's nodetool workspace (workflows, assets, collections, memory, jobs, nodes, web).
You act only by writing JavaScript actions for the execute_code tool; its description is the contract. Look up exact argument and result shapes with describe() inside an action instead of guessing, and prefer one action that does several things over many small ones.
Some calls ask the user for approval: put a one-line reason for the user in the call's _message argument. If the user denies a call, do not retry it unchanged.
The ui module works on the workflow open in the user's editor, which is what "this workflow" or "the canvas" means: ui.getGraph reads it (with the ids of the nodes the user has selected, which is what "this node" or "these nodes" mean) and ui edits show there at once (they need the editor, so from a terminal they are unavailable; use workflows there). A workflow you create or change for the user in the editor that is not the one open: open it there with ui.openWorkflow, so they see it. A message sent from the editor ends with what it showed then (the open workflow, the selected nodes).
Every save of a workflow keeps the version it replaces: to undo a change to a workflow, read workflows.versions and update it with the earlier version's graph (workflows.get(id, { version })).
Use view_image to look at an image asset.
When the request is done (or cannot be done), answer the user in plain text, briefly, saying what you did.`;

/**
 * The tool results a request ended with that no model turn carried to the server (Stop, the step cap
 * or the budget ended it right after them): the host stores them so the thread shows what happened.
 */
export function trailingResults(added: readonly AgentMessage[]): AgentMessage[] {
  const last = added.map((message) => message.role).lastIndexOf("assistant");
  return added.slice(last + 1).filter((message) => message.role === "tool");
}

/**
 * What a host sends for the next model turn when the server already holds the conversation: every
 * message after the last one the server has, except the assistant turns (the server wrote those
 * itself from the stream). `known` is how many of `messages` the server has; answers the messages to
 * send and what `known` will be once the server has streamed its next assistant turn.
 */
export function appendSince(
  messages: readonly AgentMessage[],
  known: number,
): { append: AgentMessage[]; next: number } {
  const append = messages.slice(known).filter((message) => message.role !== "assistant");
  return { append, next: messages.length + 1 };
}
