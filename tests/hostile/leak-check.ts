/**
 * The leak check every hostile case ends with: the worker, once idle, holds no runtime an action used,
 * and freed every one of them without QuickJS aborting (it aborts freeing a runtime that still has a
 * live object: a leaked handle). Counts are the worker's own.
 */
import { expect } from "vitest";
import type { NodeSandboxHost } from "../../server-bridge/sandbox/host.ts";

export async function expectNoLeak(host: NodeSandboxHost): Promise<void> {
  const stats = await host.stats();
  expect(stats, "the worker answered its counters").toBeDefined();
  expect(stats).toMatchObject({ liveRuntimes: 0, retiredRuntimes: 0, disposeFailures: 0 });
}
