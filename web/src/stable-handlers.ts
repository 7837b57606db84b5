import { useMemo, useRef } from "react";

/**
 * The same functions on every render, each calling the newest render's own: what React Flow passes to
 * every node and connection must keep its identity, or all of them draw again.
 */
// biome-ignore lint/suspicious/noExplicitAny: any handler's parameters
export function useStableHandlers<T extends Record<string, (...args: any[]) => unknown>>(handlers: T): T {
  const latest = useRef(handlers);
  latest.current = handlers;
  return useMemo(
    () =>
      Object.fromEntries(
        Object.keys(latest.current).map((name) => [name, (...args: unknown[]) => latest.current[name]?.(...args)]),
      ) as T,
    [],
  );
}
