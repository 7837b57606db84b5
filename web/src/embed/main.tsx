/**
 * The widget page's entry (web/embed.html, served at `/embed?w=<widget id>`): reads the widget's
 * public policy from the page, opens the channel to its host, and renders the widget. Opened on its
 * own (not framed), it says how to embed it instead. How many host messages it has ignored is on the
 * root element (`data-ignored-messages`), for whoever looks.
 */
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import "../styles.css";
import "./embed.css";
import { refuseStrayFileDrops } from "../file-drops.ts";
import { readWidgetConfig } from "./config.ts";
import { EmbedApp } from "./EmbedApp.tsx";
import { linkToHost } from "./host-link.ts";

refuseStrayFileDrops(window);
const root = document.getElementById("root");
const config = readWidgetConfig(document);
if (root) {
  const view = createRoot(root);
  if (!config) {
    view.render(<p role="alert">This widget page has no valid widget configuration.</p>);
  } else if (window.parent === window) {
    view.render(
      <p role="alert">
        This is an embeddable widget: a page of one of its allowed origins shows it with mountAgentWidget() from
        /embed/sdk.js.
      </p>,
    );
  } else {
    const link = linkToHost(config);
    link.peer.onIgnored = () => {
      const { ignored } = link.peer.stats();
      document.documentElement.dataset.ignoredMessages = String(ignored.source + ignored.origin + ignored.malformed);
    };
    view.render(
      <StrictMode>
        <EmbedApp config={config} link={link} />
      </StrictMode>,
    );
  }
}
