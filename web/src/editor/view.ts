/**
 * The canvas's view after an edit: React Flow draws and measures a new node a frame or two after the
 * edit that made it, so fitting the view to it or focusing it waits for that. And what the editor
 * opens over it (a menu, a dialog) gives focus back where it was when it closes.
 */
import type { Node } from "@xyflow/react";
import { useCallback, useRef, useState } from "react";

/**
 * Runs `step` on the coming frames until it says it is done, at most `frames` times (the last call is
 * told so): React Flow draws and measures a new node a frame or two after the edit that made it.
 */
export function eachFrameUntil(step: (last: boolean) => boolean, frames = 60): void {
  requestAnimationFrame(() => {
    if (!step(frames <= 1) && frames > 1) eachFrameUntil(step, frames - 1);
  });
}

/**
 * Fits the view, to the whole graph or `only` to these nodes, once React Flow has measured them (a fit
 * before that would leave them out).
 */
export function fitOnceMeasured(
  flow: {
    getInternalNode(id: string): { measured: { width?: number | undefined } } | undefined;
    fitView(options: { padding: number; maxZoom: number; nodes?: { id: string }[] }): Promise<boolean>;
  },
  ids: string[],
  only = false,
): void {
  eachFrameUntil((last) => {
    const measured = ids.every((id) => flow.getInternalNode(id)?.measured.width);
    if (measured || last) {
      void flow.fitView({
        padding: only ? 0.5 : 0.15,
        maxZoom: 1,
        ...(only ? { nodes: ids.map((id) => ({ id })) } : {}),
      });
    }
    return measured;
  });
}

/** The node nearest the first of `gone` among those that stay (undefined when none stay). */
export function nearestLeft(all: readonly Node[], gone: readonly Node[]): string | undefined {
  const from = gone[0]?.position;
  const goneIds = new Set(gone.map((n) => n.id));
  let best: { id: string; d: number } | undefined;
  for (const node of all) {
    if (goneIds.has(node.id)) continue;
    const d = from ? Math.hypot(node.position.x - from.x, node.position.y - from.y) : 0;
    if (!best || d < best.d) best = { id: node.id, d };
  }
  return best?.id;
}

/**
 * Focuses a node once React Flow shows it (it draws a new node hidden until measured; hidden takes no
 * focus), unless the person has put focus somewhere else meanwhile (a click on Add node while the new
 * node is still being drawn: taking focus back would close the palette it opened).
 */
export function focusOnceDrawn(nodeId: string): void {
  const start = document.activeElement;
  eachFrameUntil(() => {
    const now = document.activeElement;
    if (now !== null && now !== start && now !== document.body) return true;
    const element = document.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(nodeId)}"]`);
    element?.focus();
    return element !== null && document.activeElement === element;
  });
}

/**
 * Something opened over the page (a menu, a dialog), `shown` while open: `open` remembers what had
 * focus, `close` gives it back (unless `refocus` is false: a click elsewhere put it there).
 */
export function useOpened<T>(): { shown: T | undefined; open(value: T): void; close(refocus?: boolean): void } {
  const [shown, setShown] = useState<T | undefined>();
  const opener = useRef<Element | null>(null);
  const open = useCallback((value: T) => {
    opener.current = document.activeElement;
    setShown(() => value);
  }, []);
  const close = useCallback((refocus = true) => {
    setShown(undefined);
    const element = opener.current;
    if (refocus && element instanceof HTMLElement && element.isConnected) element.focus();
  }, []);
  return { shown, open, close };
}
