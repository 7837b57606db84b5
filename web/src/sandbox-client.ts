/** Placeholder until the worker host lands: replaced in the browser-path commit. */
import type { EditorController } from "./editor/controller.ts";
import type { ObservationView } from "./panel/ResultView.tsx";

export interface SandboxClient {
  run(code: string): Promise<{ observation: ObservationView; notice?: string }>;
  cancel(): void;
}

export function createSandboxClient(_sessionId: string, _editor: EditorController): SandboxClient {
  return {
    run: async () => ({
      observation: {
        ok: false,
        error: { code: "capability_unavailable", message: "not wired" },
        logs: [],
        calls: [],
        duration_ms: 0,
      },
    }),
    cancel: () => {},
  };
}
