/**
 * The watchdog outside the worker (used by the Node host and by the page; platform-neutral). The worker writes the deadline of the synchronous VM slice it is
 * running into shared memory (0 when idle); the interrupt handler ends a slice at that deadline, unless
 * some builtin never checks it (a search over a huge array-like). The watchdog polls the cell and, when
 * a slice is still running `graceMs` past its deadline, calls `onOverrun` (the host terminates the
 * worker and starts a new one).
 */

export interface Watchdog extends Disposable {
  readonly buffer: SharedArrayBuffer;
  dispose(): void;
}

export function startWatchdog(options: { graceMs: number; intervalMs?: number; onOverrun(): void }): Watchdog {
  const buffer = new SharedArrayBuffer(8);
  const cells = new BigInt64Array(buffer);
  let fired = false;
  const timer = setInterval(
    () => {
      const deadline = Number(Atomics.load(cells, 0));
      if (fired || deadline === 0) return;
      if (Date.now() > deadline + options.graceMs) {
        fired = true;
        options.onOverrun();
      }
    },
    options.intervalMs ?? Math.max(10, Math.min(250, Math.floor(options.graceMs / 4))),
  );
  timer.unref?.();
  const dispose = () => clearInterval(timer);
  return { buffer, dispose, [Symbol.dispose]: dispose };
}
