/**
 * The watchdog outside the worker (used by the Node host and by the page; platform-neutral). The worker
 * announces the deadline of the synchronous VM slice it is running (0 when idle); the interrupt handler
 * ends a slice at that deadline, unless some builtin never checks it (a search over a huge array-like).
 * The watchdog polls what it was told and, when a slice is still running `graceMs` past its deadline,
 * calls `onOverrun` (the host terminates the worker and starts a new one).
 *
 * Two ways to be told: shared memory the worker writes (`buffer` cell 0, where SharedArrayBuffer
 * exists: Node, and a cross-origin isolated page), or messages the worker posts before and after each
 * slice (`port`: a widget framed by a page that is not isolated has no SharedArrayBuffer). A message
 * posted before a slice starts arrives while the slice runs, so an endless slice is caught either way.
 *
 * Cell 1 of the shared memory is the host's stop request: the interrupt handler reads it, so a cancel
 * reaches an action even while a synchronous loop keeps the worker from reading its messages
 * (worker/host/clock.ts). The host clears it before it sends the next action (it sends one only after
 * the last one answered). Without shared memory there is no such cell: a cancel is the message alone.
 */

export interface Watchdog extends Disposable {
  /** Shared memory for the worker's slice deadlines and the stop request, when this context has it. */
  readonly buffer: SharedArrayBuffer | undefined;
  /** Otherwise: the port the worker posts each slice's deadline (and 0 at its end) on. */
  readonly port: MessagePort | undefined;
  /** Asks the action now running to stop at its next interrupt check (it answers `cancelled`). */
  requestStop(): void;
  /** Before the next action is sent: a stop requested for the last one no longer applies. */
  clearStop(): void;
  dispose(): void;
}

export function startWatchdog(options: { graceMs: number; intervalMs?: number; onOverrun(): void }): Watchdog {
  const buffer = typeof SharedArrayBuffer === "function" ? new SharedArrayBuffer(16) : undefined;
  const cells = buffer ? new BigInt64Array(buffer) : undefined;
  let told = 0;
  let channel: MessageChannel | undefined;
  if (!cells) {
    channel = new MessageChannel();
    channel.port1.onmessage = (event: MessageEvent) => {
      told = typeof event.data === "number" && Number.isFinite(event.data) ? event.data : 0;
    };
  }
  let fired = false;
  const timer = setInterval(
    () => {
      const deadline = cells ? Number(Atomics.load(cells, 0)) : told;
      if (fired || deadline === 0) return;
      if (Date.now() > deadline + options.graceMs) {
        fired = true;
        options.onOverrun();
      }
    },
    options.intervalMs ?? Math.max(10, Math.min(250, Math.floor(options.graceMs / 4))),
  );
  (timer as { unref?: () => void }).unref?.();
  const dispose = () => {
    clearInterval(timer);
    channel?.port1.close();
  };
  const requestStop = () => {
    if (cells) Atomics.store(cells, 1, 1n);
  };
  const clearStop = () => {
    if (cells) Atomics.store(cells, 1, 0n);
  };
  return { buffer, port: channel?.port2, requestStop, clearStop, dispose, [Symbol.dispose]: dispose };
}
