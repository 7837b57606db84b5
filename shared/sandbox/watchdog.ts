/**
 * The watchdog outside the worker (used by the Node host and by the page; platform-neutral). The worker writes the deadline of the synchronous VM slice it is
 * running into shared memory (cell 0; 0 when idle); the interrupt handler ends a slice at that deadline, unless
 * some builtin never checks it (a search over a huge array-like). The watchdog polls the cell and, when
 * a slice is still running `graceMs` past its deadline, calls `onOverrun` (the host terminates the
 * worker and starts a new one).
 *
 * Cell 1 is the host's stop request: the interrupt handler reads it, so a cancel reaches an action
 * even while a synchronous loop keeps the worker from reading its messages (worker/host/clock.ts).
 * The host clears it before it sends the next action (it sends one only after the last one answered).
 */

export interface Watchdog extends Disposable {
  readonly buffer: SharedArrayBuffer;
  /** Asks the action now running to stop at its next interrupt check (it answers `cancelled`). */
  requestStop(): void;
  /** Before the next action is sent: a stop requested for the last one no longer applies. */
  clearStop(): void;
  dispose(): void;
}

export function startWatchdog(options: { graceMs: number; intervalMs?: number; onOverrun(): void }): Watchdog {
  const buffer = new SharedArrayBuffer(16);
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
  const requestStop = () => void Atomics.store(cells, 1, 1n);
  const clearStop = () => void Atomics.store(cells, 1, 0n);
  return { buffer, requestStop, clearStop, dispose, [Symbol.dispose]: dispose };
}
