/**
 * The page: sign-in explanation, or the editor (the main area) with the agent panel docked beside it,
 * the mode selector, and the approval dialog. A skip link leads to the panel; the focus order follows
 * the layout (header, editor, panel).
 */
import { useEffect, useMemo, useRef } from "react";
import type { SessionEvent } from "../../shared/protocol/server.ts";
import { api, transport } from "./api.ts";
import { ConnectionStatus, SignOutButton } from "./ConnectionStatus.tsx";
import { EditorPane } from "./editor/EditorPane.tsx";
import { linkedWorkflow } from "./editor/workflow-url.ts";
import { Dock } from "./layout/Dock.tsx";
import { ModePicker } from "./ModePicker.tsx";
import { createPage } from "./page.ts";
import { titleWaiting } from "./page-title.ts";
import { AgentPanel } from "./panel/AgentPanel.tsx";
import { ApprovalDialog } from "./panel/ApprovalDialog.tsx";
import { appPersistence } from "./persist.ts";
import { useSession } from "./useSession.ts";

/** Why the sign-in link this page came from was refused: the server redirects to `/?signin=<reason>`. */
const SIGNIN_REFUSALS: Record<string, string> = {
  invalid: "That sign-in link's token is not valid (a token from another data directory, or mistyped).",
  api_only: "That token is an API token for scripts: it cannot sign a browser in. Use the admin token's address.",
};

/** Read once as the page loads, and dropped from the address so a reload does not show it again. */
const signinRefusal = ((): string | undefined => {
  const url = new URL(window.location.href);
  const reason = url.searchParams.get("signin");
  if (reason === null) return undefined;
  url.searchParams.delete("signin");
  window.history.replaceState(window.history.state, "", `${url.pathname}${url.search}${url.hash}`);
  return reason in SIGNIN_REFUSALS ? reason : undefined;
})();

export function App() {
  const events = useRef<((event: SessionEvent) => void) | undefined>(undefined);
  const { state, error, clearError, respond, setMode, revoke } = useSession(api, appPersistence, (event) =>
    events.current?.(event),
  );
  const sessionId = state.status === "ready" ? state.sessionId : undefined;
  const page = useMemo(() => (sessionId ? createPage(sessionId) : undefined), [sessionId]);
  events.current = page?.onEvent;
  const waiting = state.status === "ready" ? state.approvals.length : 0;
  useEffect(() => titleWaiting(waiting), [waiting]);

  if (state.status === "loading") return <p className="status">Connecting…</p>;
  if (state.status === "signed_out") {
    return (
      <main className="signed-out">
        <h1>nodetool sandbox</h1>
        {signinRefusal ? <p role="alert">{SIGNIN_REFUSALS[signinRefusal]}</p> : null}
        <p>
          You are not signed in. Open the address that <code>npm start</code> printed in its terminal (it ends in{" "}
          <code>/?token=…</code>). The token is also in <code>$DATA_DIR/token</code> (by default{" "}
          <code>.data/token</code>): paste it here.
        </p>
        {/* The same sign-in as the printed address: the server swaps the token for a cookie and
            redirects to a clean address. */}
        <form method="get" action="/" className="signin">
          <label>
            Token <input name="token" type="password" required autoComplete="off" spellCheck={false} size={40} />
          </label>{" "}
          {/* A link to a workflow opens it once signed in. */}
          {linkedWorkflow() ? <input type="hidden" name="workflow" value={linkedWorkflow()} /> : null}
          <button type="submit">Sign in</button>
        </form>
      </main>
    );
  }
  if (state.status === "error") {
    return (
      <main className="signed-out">
        <h1>nodetool sandbox</h1>
        <p role="alert">The server could not be reached: {state.message}. Reload to try again.</p>
      </main>
    );
  }
  const [current, ...queued] = state.approvals;
  return (
    <div className="app">
      <a className="skip-link" href="#agent-panel">
        Skip to the agent panel
      </a>
      <header>
        <h1>nodetool sandbox</h1>
        <ModePicker mode={state.mode} onChange={(mode) => void setMode(mode)} />
        <SignOutButton api={api} />
      </header>
      <ConnectionStatus transport={transport} />
      {error ? (
        <p role="alert" className="banner">
          {error}{" "}
          <button type="button" onClick={clearError}>
            Dismiss
          </button>
        </p>
      ) : null}
      <main>
        {page ? (
          <Dock
            openOn={page.asks.watch}
            main={
              <EditorPane
                controller={page.editor}
                workflows={page.workflows}
                jobs={page.jobs}
                runner={page.runner}
                asks={page.asks}
              />
            }
            panel={
              <AgentPanel
                sandbox={page.sandbox}
                jobs={page.jobs}
                allowed={state.allowed}
                onRevoke={(name) => void revoke(name)}
                mode={state.mode}
                api={api}
                calls={page.editor.calls}
                showNode={(workflowId, nodeId) => page.editor.reveal(workflowId, nodeId)}
                asks={page.asks}
                editor={page.editor.store}
                agentContext={page.agentContext}
                addToWorkflow={async (asset) => {
                  const { nodes, problem } = page.editor.addAssets([asset]);
                  return problem ?? (nodes[0] === undefined ? undefined : page.editor.reveal(null, nodes[0]));
                }}
                takeInputs={(workflowId, fields) => {
                  page.runner.fields.set(workflowId, fields);
                  return page.editor.reveal(workflowId);
                }}
              />
            }
          />
        ) : null}
      </main>
      {current ? (
        <ApprovalDialog key={current.approval_id} approval={current} queued={queued.length} onAnswer={respond} />
      ) : null}
    </div>
  );
}
