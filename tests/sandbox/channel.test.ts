/** The typed Comlink adapter: allowlisted calls only, bounded waits, termination rejects pending calls. */
import { MessageChannel } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { connectRemote, exposeAllowlisted, isAllowedCall, nodeEndpoint } from "../../shared/sandbox/channel.ts";

describe("channel", () => {
  it("accepts only APPLY of an allowlisted top-level name with plain arguments", () => {
    const names = ["run"];
    expect(isAllowedCall({ type: "APPLY", path: ["run"], argumentList: [{ type: "RAW", value: 1 }] }, names)).toBe(
      true,
    );
    expect(isAllowedCall({ type: "GET", path: ["run"] }, names)).toBe(false);
    expect(isAllowedCall({ type: "SET", path: ["run"], value: { type: "RAW" } }, names)).toBe(false);
    expect(isAllowedCall({ type: "CONSTRUCT", path: ["run"], argumentList: [] }, names)).toBe(false);
    expect(isAllowedCall({ type: "APPLY", path: ["run", "call"], argumentList: [] }, names)).toBe(false);
    expect(isAllowedCall({ type: "APPLY", path: ["constructor"], argumentList: [] }, names)).toBe(false);
    expect(
      isAllowedCall({ type: "APPLY", path: ["run"], argumentList: [{ type: "HANDLER", name: "proxy" }] }, names),
    ).toBe(false);
  });

  it("serves allowlisted calls, ignores others, bounds waits and rejects pending calls on close", async () => {
    const { port1, port2 } = new MessageChannel();
    let calls = 0;
    const api = {
      echo: async (x: unknown) => {
        calls++;
        return x;
      },
      never: () => new Promise(() => {}),
      secret: () => "leak",
    };
    const stop = exposeAllowlisted(api, nodeEndpoint(port1), ["echo", "never"]);
    const remote = connectRemote(nodeEndpoint(port2), ["echo", "never", "secret"], 200);
    expect(await remote.call("echo", { a: 1 })).toEqual({ a: 1 });
    await expect(remote.call("secret", null)).rejects.toMatchObject({ payload: { code: "timeout" } });
    const pending = remote.call("never", null, { timeoutMs: 60_000 });
    expect(remote.pendingCount).toBe(1);
    remote.close("terminated");
    await expect(pending).rejects.toMatchObject({ payload: { code: "run_ended" } });
    await expect(remote.call("echo", 1)).rejects.toMatchObject({ payload: { code: "run_ended" } });
    expect(calls).toBe(1);
    stop();
    port1.close();
    port2.close();
  });
});
