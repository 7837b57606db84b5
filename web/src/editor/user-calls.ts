/**
 * The person's own calls from the editor's controls: capability calls and `ui` authorisations on the
 * page's editor run, as the user (audited as the user's, never prompted). The run is started on first
 * use and restarted once if it has ended. Answers are decoded once, here, from the boundary encoding.
 * Files the person chooses go up as they are (`POST /assets`, with progress: the signed-in person's own
 * page), up to the asset cap; a file past it is refused here, before anything is sent.
 */
import { moduleSpecifier } from "../../../shared/capabilities/table.ts";
import type { InvokeResult } from "../../../shared/capabilities/types.ts";
import { formatBytes } from "../../../shared/protocol/durations.ts";
import { fromWire, toWire } from "../../../shared/protocol/values.ts";
import type { Api } from "../transport.ts";
import { readAnswer } from "../ui-client.ts";

const LOST: InvokeResult = {
  ok: false,
  error: { code: "run_ended", message: "The editor lost its connection to the server; reload the page." },
};

/** How much of a file has gone up, from 0 to 1. */
export type UploadProgress = (fraction: number) => void;

export class UserCalls {
  #runId: Promise<string> | undefined;
  #calls = 0;
  #maxAssetBytes: Promise<number> | undefined;

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
  async saveFile(file: File, progress?: UploadProgress, stop?: AbortSignal): Promise<InvokeResult> {
    this.#maxAssetBytes ??= this.api.config.get.query().then(
      (limits) => limits.maxAssetBytes,
      (err: unknown) => {
        this.#maxAssetBytes = undefined;
        throw err;
      },
    );
    // Unknown (the server did not say): the server's own check refuses it instead.
    const most = await this.#maxAssetBytes.catch(() => undefined);
    if (most !== undefined && file.size > most) {
      return {
        ok: false,
        error: {
          code: "invalid_call",
          message: `${formatBytes(file.size)} is more than one asset may be (${formatBytes(most)}). Upload something smaller (resize or compress it).`,
        },
      };
    }
    return this.#retry((runId) => upload(runId, file, progress, stop));
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

/**
 * `POST /assets` with the file as the body (its type as the browser knows it), reporting progress;
 * answers as `run.invoke` does. A refusal before the call (not signed in, too large) answers
 * `{error}`, read as a failed call; one stopped by `stop` answers `cancelled`.
 */
function upload(
  runId: string,
  file: File,
  progress?: UploadProgress,
  stop?: AbortSignal,
): Promise<ReturnType<typeof readAnswer>> {
  const stopped = {
    ok: false as const,
    error: { code: "cancelled" as const, message: `The upload of ${file.name} was stopped.` },
  };
  if (stop?.aborted) return Promise.resolve(stopped);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    stop?.addEventListener("abort", () => xhr.abort(), { once: true });
    xhr.open("POST", `/assets?run=${encodeURIComponent(runId)}&name=${encodeURIComponent(file.name)}`);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) progress?.(event.loaded / event.total);
    };
    xhr.onload = () => {
      let body: unknown;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = undefined;
      }
      const refused = (body as { ok?: unknown; error?: unknown } | undefined)?.ok === undefined;
      resolve(readAnswer(refused && body && typeof body === "object" ? { ok: false, ...body } : body));
    };
    xhr.onerror = () => reject(new Error("the upload did not reach the server"));
    xhr.onabort = () => resolve(stopped);
    xhr.send(file);
  });
}
