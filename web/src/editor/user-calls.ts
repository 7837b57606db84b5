/**
 * The person's own calls from the editor's controls: capability calls and `ui` authorisations on the
 * page's editor run, as the user (audited as the user's, never prompted). The run is started on first
 * use and restarted once if it has ended. Answers are decoded once, here, from the boundary encoding.
 */
import { moduleSpecifier } from "../../../shared/capabilities/table.ts";
import type { InvokeResult } from "../../../shared/capabilities/types.ts";
import { fromWire, toWire } from "../../../shared/protocol/values.ts";
import type { Api } from "../transport.ts";
import { readAnswer } from "../ui-client.ts";

const LOST: InvokeResult = {
  ok: false,
  error: { code: "run_ended", message: "The editor lost its connection to the server; reload the page." },
};

export class UserCalls {
  #runId: Promise<string> | undefined;
  #calls = 0;

  constructor(
    readonly api: Api,
    private readonly sessionId: string,
  ) {}

  #run(): Promise<string> {
    this.#runId ??= this.api.run.start
      .mutate({ sessionId: this.sessionId, editor: true })
      .then((opened) => opened.runId)
      .catch((err: unknown) => {
        this.#runId = undefined;
        throw err;
      });
    return this.#runId;
  }

  /** A fresh call id for this page's run. */
  callId(prefix: string): string {
    return `${prefix}-${Date.now().toString(36)}-${this.#calls++}`;
  }

  /** `namespace.export(...args)` as the user. */
  async invoke(namespace: string, exp: string, args: unknown[]): Promise<InvokeResult> {
    return this.#retry(async (runId) =>
      readAnswer(
        await this.api.run.invoke.mutate({
          runId,
          module: moduleSpecifier(namespace),
          export: exp,
          args: toWire(args, "args"),
          actor: "user",
        }),
      ),
    );
  }

  /** A file the person chose (or dropped), saved as their asset (`assets.save`, by its name and type). */
  async saveFile(file: Pick<File, "name" | "type" | "arrayBuffer">): Promise<InvokeResult> {
    const content = new Uint8Array(await file.arrayBuffer());
    return this.invoke("assets", "save", [
      { name: file.name, content, ...(file.type ? { content_type: file.type } : {}) },
    ]);
  }

  /** `run.authorize` of a `ui` capability as the user; `then` runs once it is allowed, before `run.complete`. */
  async authorize(
    capability: string,
    args: Record<string, unknown>,
    then: (runId: string, callId: string) => Promise<InvokeResult> = async () => ({ ok: true, value: null }),
  ): Promise<InvokeResult> {
    const callId = this.callId("user");
    return this.#retry(async (runId) => {
      const allowed = readAnswer(
        await this.api.run.authorize.mutate({ runId, capability, args: toWire(args, "args"), callId, actor: "user" }),
      );
      if ("pending" in allowed || !allowed.ok) return allowed;
      const outcome = await then(runId, callId);
      await this.api.run.complete
        .mutate({
          runId,
          callId,
          ok: outcome.ok,
          ...(outcome.ok ? {} : { error: { code: outcome.error.code, message: outcome.error.message } }),
        })
        .catch(() => {});
      return outcome;
    });
  }

  async #retry(send: (runId: string) => Promise<ReturnType<typeof readAnswer>>): Promise<InvokeResult> {
    for (let attempt = 0; attempt < 2; attempt++) {
      let answer: ReturnType<typeof readAnswer>;
      try {
        answer = await send(await this.#run());
      } catch (err) {
        return {
          ok: false,
          error: {
            code: "capability_failed",
            message: `The server could not be reached: ${err instanceof Error ? err.message : "network error"}`,
          },
        };
      }
      // A user-actor call is never held for a person, so `pending` only means "ask again".
      if ("pending" in answer) continue;
      if (!answer.ok && answer.error.code === "run_ended") {
        this.#runId = undefined;
        continue;
      }
      return answer.ok ? { ok: true, value: fromWire(answer.value, "result") } : answer;
    }
    return LOST;
  }
}
