/**
 * The canvas's context menu, as React Flow editors have it: right-click a node (or the selection), a
 * connection or the empty canvas, or press the Menu key or Shift+F10 on a focused node or connection or
 * on the canvas. It is a Menu (Menu.tsx) opened at that point, kept inside the canvas.
 */
import { useCallback } from "react";
import { Menu, type MenuItem } from "../Menu.tsx";

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
  /** The one selected note's text, written in place (absent for anything else). */
  editNote: (() => void) | undefined;
  /** The one selected node's title, in the inspector (absent for several). */
  rename: (() => void) | undefined;
  addNode(): void;
  paste: (() => void) | undefined;
  selectAll: (() => void) | undefined;
  layout: (() => void) | undefined;
  fit: (() => void) | undefined;
  find: (() => void) | undefined;
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
        ...(a.editNote ? [{ label: "Edit text", keys: "Enter", run: a.editNote }] : []),
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
      { label: "Find a node", keys: modKey("F"), run: a.find },
      ...asking,
    ],
  };
}

export function CanvasMenu({ label, at, items, onClose }: CanvasMenuProps) {
  // Inside the canvas: a menu opened near the right or bottom edge opens leftwards or upwards.
  const place = useCallback(
    (element: HTMLElement) => {
      const box = element.offsetParent;
      if (!box) return;
      element.style.left = `${Math.max(4, Math.min(at.x, box.clientWidth - element.offsetWidth - 4))}px`;
      element.style.top = `${Math.max(4, Math.min(at.y, box.clientHeight - element.offsetHeight - 4))}px`;
    },
    [at],
  );
  return <Menu label={label} items={items} onClose={onClose} place={place} className="canvas-menu" />;
}
