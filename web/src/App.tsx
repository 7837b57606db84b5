/** The page: sign-in explanation, or the agent panel with its mode, allow-set and approval dialog. */
import { useMemo } from "react";
import { MODES, type Mode } from "../../shared/capabilities/types.ts";
import { api } from "./api.ts";
import { ConnectionStatus, SignOutButton } from "./ConnectionStatus.tsx";
import { EditorController } from "./editor/controller.ts";
import { EditorPane } from "./editor/EditorPane.tsx";
import { EditorStore } from "./editor/store.ts";
import { AgentPanel } from "./panel/AgentPanel.tsx";
import { ApprovalDialog } from "./panel/ApprovalDialog.tsx";
import { JobsView } from "./panel/JobsView.tsx";
import { createSandboxClient } from "./sandbox-client.ts";
import { useSession } from "./useSession.ts";

export function App() {
  const { state, error, clearError, respond, setMode, revoke } = useSession();
  const sessionId = state.status === "ready" ? state.sessionId : undefined;
  const editor = useMemo(
    () => (sessionId ? new EditorController(api, new EditorStore(), sessionId) : undefined),
    [sessionId],
  );
  const sandbox = useMemo(
    () => (sessionId && editor ? createSandboxClient(sessionId, editor) : undefined),
    [sessionId, editor],
  );

  if (state.status === "loading") return <p className="status">Connecting…</p>;
  if (state.status === "signed_out") {
    return (
      <main className="signed-out">
        <h1>nodetool sandbox</h1>
        <p>
          You are not signed in. Open the address that <code>npm start</code> printed in its terminal (it ends in{" "}
          <code>/?token=…</code>). The token is also in <code>$DATA_DIR/token</code> (by default{" "}
          <code>.data/token</code>).
        </p>
      </main>
    );
  }
  if (state.status === "error") {
    return (
      <main>
        <h1>nodetool sandbox</h1>
        <p role="alert">The server could not be reached: {state.message}. Reload to try again.</p>
      </main>
    );
  }
  const [current, ...queued] = state.approvals;
  return (
    <main className="app">
      <header>
        <h1>nodetool sandbox</h1>
        <label className="mode">
          Mode{" "}
          <select value={state.mode} onChange={(event) => void setMode(event.target.value as Mode)}>
            {MODES.map((mode) => (
              <option key={mode} value={mode}>
                {mode}
              </option>
            ))}
          </select>
        </label>
        <SignOutButton />
      </header>
      <ConnectionStatus />
      {error ? (
        <p role="alert" className="banner">
          {error}{" "}
          <button type="button" onClick={clearError}>
            Dismiss
          </button>
        </p>
      ) : null}
      {editor ? <EditorPane controller={editor} /> : null}
      {sandbox ? <AgentPanel sandbox={sandbox} /> : null}
      <JobsView jobs={state.jobs} />
      <section className="allow-set" aria-label="Allowed for this session">
        <h2>Allowed for this session</h2>
        {state.allowed.length === 0 ? <p className="status">Nothing is allowed without asking.</p> : null}
        <ul>
          {state.allowed.map((name) => (
            <li key={name}>
              <code>{name}</code>{" "}
              <button type="button" onClick={() => void revoke(name)} aria-label={`Revoke ${name}`}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      </section>
      {current ? (
        <ApprovalDialog key={current.approval_id} approval={current} queued={queued.length} onAnswer={respond} />
      ) : null}
    </main>
  );
}
