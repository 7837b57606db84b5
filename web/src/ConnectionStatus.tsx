/** Says how the page talks to the server: nothing while the socket is up, a notice otherwise. */
import { useEffect, useState } from "react";
import { api, onTransportState, type TransportState, transportState } from "./api.ts";

export function ConnectionStatus() {
  const [state, setState] = useState<TransportState>(transportState());
  useEffect(() => onTransportState(setState), []);
  if (state.kind === "http") {
    return (
      <p role="status" className="connection">
        Connected over HTTP ({state.reason}); everything works, a little slower.
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

export function SignOutButton() {
  return (
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
  );
}
