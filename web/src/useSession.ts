/**
 * The page's agent session: restored from IndexedDB or created, kept in sync by the event stream
 * (approvals queue in arrival order; settlements remove them; mode and allow-set changes apply).
 * The stream replays pending approvals on every (re)connect, so a reload shows them again. Every event
 * is also handed to `onEvent` (the page's jobs and its workflow picker follow job and workflow events).
 */
import { useCallback, useEffect, useRef, useState } from "react";
import type { Mode } from "../../shared/capabilities/types.ts";
import type { ApprovalAnswer, ApprovalRequest } from "../../shared/gate/approvals.ts";
import { SessionEvent } from "../../shared/protocol/server.ts";
import type { Persistence } from "./persist.ts";
import { type Api, httpStatusOf, messageOf } from "./transport.ts";

export type SessionState =
  | { status: "loading" }
  | { status: "signed_out" }
  | { status: "error"; message: string }
  | {
      status: "ready";
      sessionId: string;
      mode: Mode;
      allowed: string[];
      approvals: ApprovalRequest[];
    };

const opening = new WeakMap<Api, Promise<{ sessionId: string; mode: Mode }>>();

/** Once per page (per client): a remounted component (StrictMode, hot reload) reuses the same session. */
function openSession(api: Api, persistence: Persistence): Promise<{ sessionId: string; mode: Mode }> {
  let open = opening.get(api);
  if (!open) {
    open = restoreOrCreate(api, persistence).catch((err: unknown) => {
      opening.delete(api);
      throw err;
    });
    opening.set(api, open);
  }
  return open;
}

async function restoreOrCreate(api: Api, persistence: Persistence): Promise<{ sessionId: string; mode: Mode }> {
  const saved = await persistence.loadSessionId();
  if (saved) {
    try {
      const session = await api.session.get.query({ sessionId: saved });
      return { sessionId: session.sessionId, mode: session.mode };
    } catch (err) {
      if (httpStatusOf(err) === 401) throw err;
      // The saved session is gone or not ours: start a new one below.
    }
  }
  const created = await api.session.create.mutate({});
  await persistence.saveSessionId(created.sessionId);
  return { sessionId: created.sessionId, mode: created.mode };
}

export function useSession(api: Api, persistence: Persistence, onEvent: (event: SessionEvent) => void = () => {}) {
  const [state, setState] = useState<SessionState>({ status: "loading" });
  const [error, setError] = useState<string | undefined>();
  const listener = useRef(onEvent);
  listener.current = onEvent;

  useEffect(() => {
    let cancelled = false;
    let unsubscribe: (() => void) | undefined;
    void (async () => {
      try {
        const { sessionId, mode } = await openSession(api, persistence);
        const { allowed } = await api.session.allowed.query({ sessionId });
        if (cancelled) return;
        setState({ status: "ready", sessionId, mode, allowed, approvals: [] });
        const sub = api.session.events.subscribe(
          { sessionId },
          {
            // Each event is tracked() (`{id, data}`; tRPC resumes after the last id by itself), and
            // parsed before use like everything the server sends.
            onData: ({ data }) => {
              const event = SessionEvent.safeParse(data);
              if (!event.success) return;
              setState((s) => (s.status === "ready" ? apply(s, event.data) : s));
              listener.current(event.data);
            },
            onError: (err) => setError(`Event stream: ${messageOf(err)}`),
          },
        );
        unsubscribe = () => sub.unsubscribe();
      } catch (err) {
        if (cancelled) return;
        if (httpStatusOf(err) === 401) setState({ status: "signed_out" });
        else setState({ status: "error", message: messageOf(err) });
      }
    })();
    return () => {
      cancelled = true;
      unsubscribe?.();
    };
  }, [api, persistence]);

  const sessionId = state.status === "ready" ? state.sessionId : undefined;

  const respond = useCallback(
    async (approvalId: string, answer: ApprovalAnswer) => {
      // Remove at once so a double click cannot answer twice; the server refuses a second answer anyway.
      setState((s) =>
        s.status === "ready" ? { ...s, approvals: s.approvals.filter((a) => a.approval_id !== approvalId) } : s,
      );
      try {
        await api.approvals.respond.mutate({ approvalId, answer });
      } catch (err) {
        setError(`Could not answer the approval: ${messageOf(err)}`);
      }
    },
    [api],
  );

  const setMode = useCallback(
    async (mode: Mode) => {
      if (!sessionId) return;
      try {
        const view = await api.session.setMode.mutate({ sessionId, mode });
        setState((s) => (s.status === "ready" ? { ...s, mode: view.mode } : s));
      } catch (err) {
        setError(`Could not change the mode: ${messageOf(err)}`);
      }
    },
    [api, sessionId],
  );

  const revoke = useCallback(
    async (capability: string) => {
      if (!sessionId) return;
      try {
        const { allowed } = await api.session.revoke.mutate({ sessionId, capability });
        setState((s) => (s.status === "ready" ? { ...s, allowed } : s));
      } catch (err) {
        setError(`Could not revoke: ${messageOf(err)}`);
      }
    },
    [api, sessionId],
  );

  return { state, error, clearError: () => setError(undefined), respond, setMode, revoke };
}

function apply(state: Extract<SessionState, { status: "ready" }>, event: SessionEvent): SessionState {
  switch (event.type) {
    case "approval_requested":
      if (state.approvals.some((a) => a.approval_id === event.approval.approval_id)) return state;
      return { ...state, approvals: [...state.approvals, event.approval] };
    case "approval_settled":
      return { ...state, approvals: state.approvals.filter((a) => a.approval_id !== event.approval_id) };
    case "mode_changed":
      return { ...state, mode: event.mode };
    case "allow_set_changed":
      return { ...state, allowed: event.allowed };
    case "run_ended":
    case "subtask_progress":
    case "workflow_changed":
    case "job_progress":
    case "job_ended":
      return state;
    default: {
      const never: never = event;
      return never;
    }
  }
}
