/** What the HTTP layer and the tRPC procedures share: the store and the live registries over it. */

import type { AgentServices } from "./agent/services.ts";
import type { AssetStore } from "./assets/store.ts";
import type { Logins } from "./auth/logins.ts";
import type { Credentials } from "./auth/tokens.ts";
import type { Widgets } from "./auth/widgets.ts";
import type { ServerConfig } from "./config.ts";
import type { JobEngine } from "./engine/jobs.ts";
import type { ApprovalBroker } from "./runs/approvals.ts";
import type { EventBus } from "./runs/events.ts";
import type { Relay } from "./runs/relay.ts";
import type { Runs } from "./runs/runs.ts";
import type { Sessions } from "./runs/sessions.ts";
import type { UiCalls } from "./runs/ui-calls.ts";
import type { SandboxPool } from "./sandbox/pool.ts";
import type { AuditLog } from "./store/audit.ts";
import type { Store } from "./store/db.ts";

export interface AppServices {
  config: ServerConfig;
  /** This process's id on the leases of the live rows it owns (runs, pending approvals, jobs). */
  owner: string;
  store: Store;
  credentials: Credentials;
  logins: Logins;
  /** Embeddable widgets: registration, mint keys, tokens and the iframes' credentials. */
  widgets: Widgets;
  bus: EventBus;
  /** Events about stored rows (approvals, runs, jobs), published here and signalled to the other servers. */
  relay: Relay;
  sessions: Sessions;
  approvals: ApprovalBroker;
  runs: Runs;
  /** The `ui` path of runs: authorize, complete, startJob. */
  ui: UiCalls;
  /** The workflow engine; `dispose()` it on shutdown. */
  jobs: JobEngine;
  /**
   * The process's one pool of Node sandbox workers (MCP, the CLI's actions, code nodes), fair between
   * users; workers start on first use. Whoever made the services disposes it on close.
   */
  sandbox: SandboxPool;
  audit: AuditLog;
  /** Asset rows in the store, their bytes on disk or in a bucket (ASSET_S3_BUCKET), the size caps. */
  assets: AssetStore;
  /** The agent: stored threads, model turns over the configured providers, the model list. */
  agent: AgentServices;
  log(level: "info" | "warn" | "error", message: string, detail?: unknown): void;
}
