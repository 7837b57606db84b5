/** Says how the page talks to the server: nothing while the socket is up, a notice otherwise. */
import { useEffect, useState } from "react";
import type { Api, Transport, TransportState } from "./transport.ts";

export function ConnectionStatus({ transport }: { transport: Transport }) {
  const [state, setState] = useState<TransportState>(transport.state());
  useEffect(() => transport.onState(setState), [transport]);
  if (state.kind === "http") {
    return (
      <p role="status" className="connection">
        Connected over HTTP ({state.reason}); everything works, a little slower.
      </p>
    );
  }
  if (state.kind === "closed") {
    return (
      <p role="alert" className="connection">
        The server closed this page's connection ({state.reason}). Reload the page to connect again.
      </p>
    );
  }
  if (state.kind === "websocket" && !state.connected) {
    return (
      <p role="status" className="connection">
        Reconnecting to the server… calls in flight are sent again once it is back.
      </p>
    );
  }
  return null;
}

/** Whom the page is signed in as, and `Sign out`. */
export function SignOutButton({ api }: { api: Api }) {
  const [name, setName] = useState<string | undefined>();
  useEffect(() => {
    let gone = false;
    api.auth.whoami
      .query()
      .then((me) => !gone && setName(me.name))
      .catch(() => {});
    return () => {
      gone = true;
    };
  }, [api]);
  return (
    <span className="account">
      {name !== undefined ? (
        <span className="signed-in">
          Signed in as <strong>{name}</strong>
        </span>
      ) : null}{" "}
      <button
        type="button"
        onClick={() => {
          void api.auth.signOut
            .mutate()
            .catch(() => {})
            .finally(() => location.reload());
        }}
      >
        Sign out
      </button>
    </span>
  );
}
