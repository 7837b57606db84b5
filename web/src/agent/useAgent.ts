/**
 * The agent in the page: the stored threads (list, open, new, rename, delete), the model list, and
 * `send`, which runs the CodeAct loop (shared/agent/loop.ts) with the page's own sandbox as its
 * executor (the same Web Worker, gate and approval dialog a person's action uses) and the server as
 * its model (pageModelClient). What streams in is shown as it comes; when a request ends the thread
 * is read back from the server, which is the record (a reload shows exactly that), with why the
 * request ended early when it did (stored first, so a reload says it too).
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { DEFAULT_STEP_CAP, runAgent } from "../../../shared/agent/loop.ts";
import type { AgentMessage, TokenUsage } from "../../../shared/agent/messages.ts";
import { trailingResults } from "../../../shared/agent/prompt.ts";
import type { ExecuteCodeInput } from "../../../shared/agent/tools.ts";
import type { Mode } from "../../../shared/capabilities/types.ts";
import type { Persistence } from "../persist.ts";
import type { SandboxClient } from "../sandbox-client.ts";
import { type Api, messageOf } from "../transport.ts";
import { pageModelClient } from "./model-client.ts";
import { subtaskProgress } from "./subtask-progress.ts";

export interface ThreadSummary {
  id: string;
  title: string;
  usage: { input_tokens: number; output_tokens: number };
}

export interface ModelOption {
  id: string;
  default: boolean;
}

/** A message of the open conversation, with the tokens its turn used once the server has stored it. */
export interface Entry {
  message: AgentMessage;
  usage?: TokenUsage | undefined;
}

/** A high-risk action in auto mode, waiting for the person to let it run (once). */
export interface Admission {
  input: ExecuteCodeInput;
  answer(ok: boolean): void;
}

export type AgentState = { status: "loading" } | { status: "unconfigured"; message: string } | { status: "ready" };

/**
 * How often a running request repaints the conversation. A step can take a few milliseconds, and each
 * repaint lays out, paints and composites the panel on the same cores the loop runs on; a person
 * reading along sees no difference between 20 updates a second and one per event.
 */
const REPAINT_MS = 50;

/** Calls `paint` at once, then at most once per `ms` while `schedule` is called (the last call always lands). */
function repainter(paint: () => void, ms: number) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let last = Number.NEGATIVE_INFINITY;
  const now = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    last = performance.now();
    paint();
  };
  return {
    schedule() {
      if (timer !== undefined) return;
      const wait = last + ms - performance.now();
      if (wait <= 0) now();
      else timer = setTimeout(now, wait);
    },
    /** Paints what is pending now (the request ended). */
    flush: now,
  };
}

/**
 * The request `Retry` sends again: the conversation's newest one, when it got no final answer (a
 * provider failure, a cut stream, Stop, the step cap, a turn a reload interrupted), else undefined.
 */
export function unanswered(messages: readonly Entry[]): string | undefined {
  const last = messages.findLast(({ message }) => message.role !== "tool")?.message;
  if (!last || (last.role === "assistant" && !last.interrupted && !last.ended)) return undefined;
  return lastRequest(messages);
}

/** The text of the person's last request in the conversation (undefined: none, or only attachments). */
export function lastRequest(messages: readonly Entry[]): string | undefined {
  const request = messages.findLast(({ message }) => message.role === "user")?.message;
  if (request?.role !== "user") return undefined;
  const text = request.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
  return text.trim() ? text : undefined;
}

export function useAgent(api: Api, sandbox: SandboxClient, mode: Mode, persistence: Persistence) {
  const [state, setState] = useState<AgentState>({ status: "loading" });
  const [models, setModels] = useState<ModelOption[]>([]);
  const [model, setModel] = useState<string | undefined>();
  const [stepCap, setStepCap] = useState(DEFAULT_STEP_CAP);
  const [threads, setThreads] = useState<ThreadSummary[]>([]);
  const [threadId, setThreadId] = useState<string | undefined>();
  const [messages, setMessages] = useState<Entry[]>([]);
  const [streaming, setStreaming] = useState("");
  const [running, setRunning] = useState(false);
  const [active, setActive] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [admission, setAdmission] = useState<Admission | undefined>();
  const stop = useRef<AbortController | undefined>(undefined);
  const modeRef = useRef(mode);
  modeRef.current = mode;

  const refreshThreads = useCallback(async () => {
    const { threads: list } = await api.agent.threads.list.query();
    setThreads(list);
    return list;
  }, [api]);

  const open = useCallback(
    async (id: string | undefined) => {
      setThreadId(id);
      setError(undefined);
      if (!id) {
        setMessages([]);
        return;
      }
      try {
        const { thread, messages: stored } = await api.agent.threads.get.query({ threadId: id });
        setMessages(stored.map(({ message, usage }) => ({ message, usage })));
        // One older than the list holds (found by Find): listed too, last, while it is open.
        setThreads((list) => (list.some((t) => t.id === id) ? list : [...list, thread]));
      } catch (err) {
        setError(`Could not open the conversation: ${messageOf(err)}`);
      }
    },
    [api],
  );

  useEffect(() => {
    let cancelled = false;
    void (async () => {
      try {
        const status = await api.agent.status.query();
        if (cancelled) return;
        if (!status.configured) {
          setState({ status: "unconfigured", message: status.message });
          return;
        }
        // The model the person chose last, while the server still offers it; else the server's default.
        const chosen = await persistence.loadModel().catch(() => undefined);
        if (cancelled) return;
        setModels(status.models);
        setModel((status.models.find((m) => m.id === chosen) ?? status.models.find((m) => m.default))?.id);
        if (status.stepCap) setStepCap(status.stepCap);
        const list = await refreshThreads();
        setState({ status: "ready" });
        if (list[0]) await open(list[0].id);
      } catch (err) {
        if (!cancelled) setState({ status: "unconfigured", message: `The agent is not available: ${messageOf(err)}` });
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [api, persistence, open, refreshThreads]);

  /** Whether the thread's newest request is `request` (it reached the server before the failure). */
  const holds = useCallback(
    async (id: string | undefined, request: string): Promise<boolean> => {
      if (!id) return false;
      try {
        const { messages: stored } = await api.agent.threads.get.query({ threadId: id });
        const last = stored.findLast((entry) => entry.message.role === "user")?.message;
        return last?.role === "user" && last.content.some((part) => part.type === "text" && part.text === request);
      } catch {
        return false;
      }
    },
    [api],
  );

  /**
   * Runs a request (with `context`, what the page showed as it was sent); resolves false when it never
   * reached the thread (the caller keeps the text).
   */
  const send = useCallback(
    async (request: string, context?: string): Promise<boolean> => {
      if (running || !request.trim()) return false;
      setRunning(true);
      setError(undefined);
      setStreaming("");
      const controller = new AbortController();
      stop.current = controller;
      // What this request adds is shown as it comes, repainted at most every REPAINT_MS.
      let shown: Entry[] = messages;
      const added: Entry[] = [];
      let text = "";
      let step: string | undefined;
      const repaint = repainter(() => {
        setMessages([...shown, ...added]);
        setStreaming(text);
        setActive(step);
      }, REPAINT_MS);
      let id = threadId;
      try {
        let history: AgentMessage[] = messages.map((entry) => entry.message);
        if (!id) {
          id = (await api.agent.threads.create.mutate({})).id;
          setThreadId(id);
          history = [];
          shown = [];
        }
        const outcome = await runAgent({
          model: pageModelClient(api, id, history.length),
          model_id: model,
          history,
          request,
          context,
          stepCap,
          signal: controller.signal,
          execute: async (code, { signal }) => {
            subtaskProgress.clear();
            const onAbort = () => sandbox.cancel();
            signal.addEventListener("abort", onAbort, { once: true });
            try {
              return await sandbox.run(code, { threadId: id });
            } finally {
              signal.removeEventListener("abort", onAbort);
            }
          },
          // The page cannot read assets: the server resolves the request into pixels when it stores it.
          viewImage: async (input) => ({ content: [{ type: "image_request", request: input }] }),
          admit: (input) =>
            modeRef.current === "auto" && input.risk === "high"
              ? new Promise((resolve) =>
                  setAdmission({
                    input,
                    answer: (ok) => {
                      setAdmission(undefined);
                      resolve(ok ? { ok: true } : { ok: false, message: "The user declined this high-risk action." });
                    },
                  }),
                )
              : Promise.resolve({ ok: true }),
          onEvent: (event) => {
            if (event.type === "text") text += event.delta;
            else if (event.type === "message") {
              added.push({ message: event.message });
              if (event.message.role === "assistant") text = "";
              if (event.message.role === "tool") step = undefined;
            } else if (event.type === "step_started") step = event.call.id;
            else return;
            repaint.schedule();
          },
        });
        repaint.flush();
        const trailing = trailingResults(outcome.added);
        if (trailing.length > 0) await api.agent.threads.append.mutate({ threadId: id, messages: trailing });
        // Why the request ended early is part of the thread, shown with its last message on every read.
        const recorded =
          outcome.status === "final" ||
          (await api.agent.threads.end
            .mutate({ threadId: id, ended: { status: outcome.status, message: outcome.answer } })
            .then(
              (answer) => answer.recorded,
              () => false,
            ));
        // The server's copy is the record: read it back (it holds the turns as they were stored).
        await open(id);
        await refreshThreads();
        if (!recorded) setError(outcome.answer);
        return outcome.status === "final" || (await holds(id, request));
      } catch (err) {
        repaint.flush();
        setError(`The agent stopped: ${messageOf(err)}`);
        return await holds(id, request);
      } finally {
        stop.current = undefined;
        setRunning(false);
        setActive(undefined);
        setStreaming("");
        setAdmission(undefined);
      }
    },
    [api, sandbox, running, threadId, messages, model, stepCap, open, refreshThreads, holds],
  );

  const chooseModel = useCallback(
    (id: string) => {
      setModel(id);
      void persistence.saveModel(id);
    },
    [persistence],
  );

  const newThread = useCallback(async () => {
    if (running) return;
    await open(undefined);
  }, [running, open]);

  const rename = useCallback(
    async (title: string) => {
      if (!threadId) return;
      await api.agent.threads.rename.mutate({ threadId, title });
      await refreshThreads();
    },
    [api, threadId, refreshThreads],
  );

  const remove = useCallback(async () => {
    if (!threadId || running) return;
    await api.agent.threads.delete.mutate({ threadId });
    const list = await refreshThreads();
    await open(list[0]?.id);
  }, [api, threadId, running, refreshThreads, open]);

  const search = useCallback(async (query: string) => (await api.agent.threads.search.query({ query })).found, [api]);

  return {
    state,
    models,
    model,
    setModel: chooseModel,
    threads,
    threadId,
    open,
    messages,
    streaming,
    running,
    active,
    error,
    admission,
    send,
    stop: () => stop.current?.abort(),
    newThread,
    rename,
    remove,
    search,
  };
}
