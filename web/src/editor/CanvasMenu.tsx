/**
 * The canvas's context menu, as React Flow editors have it: right-click a node (or the selection), a
 * connection or the empty canvas, or press the Menu key or Shift+F10 on a focused node or connection or
 * on the canvas. A WAI-ARIA menu: the first item has focus, the arrow keys, Home and End move, Enter
 * runs an item, Escape (or Tab) closes it and focus goes back where it was; a click elsewhere closes it.
 */
import { useEffect, useLayoutEffect, useRef } from "react";

export interface MenuItem {
  label: string;
  /** The keys that do the same, shown beside it. */
  keys?: string | undefined;
  /** What it does; absent: not possible now (shown, disabled). */
  run: (() => void) | undefined;
}

/** What was right-clicked, and where (pixels inside the canvas, and the flow position there). */
export interface MenuRequest {
  kind: "node" | "edge" | "pane";
  /** The nodes it acts on: the selection as it is once the menu opens (the page hears of it later). */
  nodes: readonly string[];
  at: { x: number; y: number };
  flow: { x: number; y: number };
}

export interface CanvasMenuProps {
  label: string;
  at: { x: number; y: number };
  items: readonly MenuItem[];
  /** `refocus`: give focus back to what had it when the menu opened. */
  onClose(refocus: boolean): void;
}

/** The label of a shortcut on this platform: Cmd on a Mac, Ctrl elsewhere. */
export function modKey(key: string): string {
  const mac = typeof navigator !== "undefined" && /Mac|iPhone|iPad/.test(navigator.platform);
  return `${mac ? "Cmd" : "Ctrl"}+${key}`;
}

/** What the menus can do; `undefined`: not possible now (shown, disabled). */
export interface MenuActions {
  copy(): void;
  duplicate(): void;
  remove(): void;
  /** The selection's connections go. */
  disconnect: (() => void) | undefined;
  /** A question about the selection (on the canvas: the workflow), begun in the agent's Message (absent without an agent). */
  ask: (() => void) | undefined;
  /** The one selected node's title, in the inspector (absent for several). */
  rename: (() => void) | undefined;
  addNode(): void;
  paste: (() => void) | undefined;
  selectAll: (() => void) | undefined;
  layout: (() => void) | undefined;
  fit: (() => void) | undefined;
}

/** The menu for what it opened on: a connection, the selected nodes (`count` of them), or the canvas. */
export function menuFor(
  kind: MenuRequest["kind"],
  count: number,
  a: MenuActions,
): { label: string; items: MenuItem[] } {
  const asking: MenuItem[] = a.ask ? [{ label: "Ask the agent", run: a.ask }] : [];
  if (kind === "edge")
    return { label: "Connection actions", items: [{ label: "Delete connection", keys: "Delete", run: a.remove }] };
  if (kind === "node")
    return {
      label: count > 1 ? `Actions for ${count} nodes` : "Node actions",
      items: [
        { label: "Copy", keys: modKey("C"), run: a.copy },
        { label: "Duplicate", keys: modKey("D"), run: a.duplicate },
        { label: "Rename", keys: "F2", run: a.rename },
        { label: "Disconnect", run: a.disconnect },
        ...asking,
        { label: "Delete", keys: "Delete", run: a.remove },
      ],
    };
  return {
    label: "Canvas actions",
    items: [
      { label: "Add node here", run: a.addNode },
      { label: "Paste here", run: a.paste },
      { label: "Select all", keys: modKey("A"), run: a.selectAll },
      { label: "Auto layout", run: a.layout },
      { label: "Fit view", run: a.fit },
      ...asking,
    ],
  };
}

/** The items that can be chosen now, in order. */
function enabledItems(menu: HTMLElement | null): HTMLElement[] {
  return [...(menu?.querySelectorAll<HTMLElement>('[role="menuitem"]:not([aria-disabled="true"])') ?? [])];
}

export function CanvasMenu({ label, at, items, onClose }: CanvasMenuProps) {
  const menu = useRef<HTMLDivElement>(null);

  // Inside the canvas: a menu opened near the right or bottom edge opens leftwards or upwards.
  useLayoutEffect(() => {
    const element = menu.current;
    const box = element?.offsetParent;
    if (!element || !box) return;
    const left = Math.max(4, Math.min(at.x, box.clientWidth - element.offsetWidth - 4));
    const top = Math.max(4, Math.min(at.y, box.clientHeight - element.offsetHeight - 4));
    element.style.left = `${left}px`;
    element.style.top = `${top}px`;
  }, [at]);
  useEffect(() => enabledItems(menu.current)[0]?.focus(), []);
  // A press anywhere else closes it (focus stays where that press puts it), as a wheel does.
  const close = useRef(onClose);
  close.current = onClose;
  useEffect(() => {
    const outside = (event: PointerEvent) => {
      if (!menu.current?.contains(event.target as Node)) close.current(false);
    };
    // The canvas zooming or panning under it would leave it pointing at nothing.
    const moved = () => close.current(false);
    document.addEventListener("pointerdown", outside, true);
    document.addEventListener("wheel", moved, true);
    return () => {
      document.removeEventListener("pointerdown", outside, true);
      document.removeEventListener("wheel", moved, true);
    };
  }, []);

  return (
    <div
      ref={menu}
      role="menu"
      aria-label={label}
      className="canvas-menu"
      style={{ left: at.x, top: at.y }}
      onContextMenu={(event) => event.preventDefault()}
      onKeyDown={(event) => {
        const all = enabledItems(menu.current);
        const at = all.indexOf(document.activeElement as HTMLElement);
        const go = (i: number) => all[(i + all.length) % all.length]?.focus();
        if (event.key === "ArrowDown") go(at + 1);
        else if (event.key === "ArrowUp") go(at - 1);
        else if (event.key === "Home") go(0);
        else if (event.key === "End") go(all.length - 1);
        else if (event.key === "Escape" || event.key === "Tab") onClose(true);
        else return;
        event.preventDefault();
        event.stopPropagation();
      }}
    >
      {items.map((item) => (
        <button
          key={item.label}
          type="button"
          role="menuitem"
          tabIndex={-1}
          aria-disabled={item.run ? undefined : "true"}
          aria-keyshortcuts={item.keys?.replace("Cmd", "Meta").replace("Ctrl", "Control")}
          onClick={() => {
            if (!item.run) return;
            // Focus goes back first: what the item does may move it on (the palette, a pasted node).
            onClose(true);
            item.run();
          }}
        >
          <span>{item.label}</span>
          {item.keys ? <kbd>{item.keys}</kbd> : null}
        </button>
      ))}
    </div>
  );
}
