/**
 * The widget page: waits for its host's token, exchanges it once for the credential (kept in this
 * page's memory only), then shows the panel over a transport of its own. A refused token (already
 * used, expired, revoked) is shown here with its code, and told to the host; so is the server closing
 * it for good once open (the widget revoked, its credential expired).
 */
import { useEffect, useState } from "react";
import type { FailurePayload } from "../../../shared/protocol/errors.ts";
import { setPageCredential } from "../page-fetch.ts";
import { createPersistence } from "../persist.ts";
import { createTransport, type Transport } from "../transport.ts";
import type { WidgetConfig } from "./config.ts";
import { exchangeToken } from "./connect.ts";
import type { HostLink } from "./host-link.ts";
import { WidgetPanel } from "./WidgetPanel.tsx";

type Phase =
  | { kind: "waiting" }
  | { kind: "connecting" }
  /** `closed`: it had opened, and the server closed it for good (the widget revoked, the credential expired). */
  | { kind: "failed"; error: FailurePayload; closed?: boolean }
  | { kind: "ready"; transport: Transport; hostUi: boolean };

export function EmbedApp({ config, link }: { config: WidgetConfig; link: HostLink }) {
  const [phase, setPhase] = useState<Phase>({ kind: "waiting" });
  const [persistence] = useState(() => createPersistence(`nodetool-widget-${config.id}`));
  useEffect(() => {
    let stopped = false;
    void link.connect.then(async ({ token, ui }) => {
      if (stopped) return;
      setPhase({ kind: "connecting" });
      const exchanged = await exchangeToken(config.id, token);
      if (stopped) return;
      if (!exchanged.ok) {
        setPhase({ kind: "failed", error: exchanged.error });
        link.send({ type: "failed", error: exchanged.error });
        return;
      }
      setPageCredential(exchanged.credential);
      const transport = createTransport({ auth: exchanged.credential });
      transport.onState((state) => {
        if (state.kind !== "closed" || stopped) return;
        const error: FailurePayload = {
          code: "unauthorized",
          message: `The server closed the widget (${state.reason}). Reload the host page to open it again.`,
        };
        setPhase({ kind: "failed", error, closed: true });
        link.send({ type: "failed", error });
      });
      setPhase({ kind: "ready", transport, hostUi: ui });
    });
    link.send({ type: "ready", widget: config.id });
    return () => {
      stopped = true;
    };
  }, [config, link]);

  switch (phase.kind) {
    case "waiting":
      return <p className="status">Waiting for the host page…</p>;
    case "connecting":
      return <p className="status">Connecting…</p>;
    case "failed":
      return (
        <main className="signed-out">
          <h1>nodetool agent</h1>
          <p role="alert">
            {phase.closed ? "The widget was closed" : "The widget could not open"} ({phase.error.code}):{" "}
            {phase.error.message}
          </p>
        </main>
      );
    case "ready":
      return (
        <WidgetPanel
          config={config}
          link={link}
          transport={phase.transport}
          persistence={persistence}
          hostUi={phase.hostUi}
        />
      );
    default: {
      const never: never = phase;
      return never;
    }
  }
}
