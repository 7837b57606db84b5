/**
 * The page's two areas: the editor (the main area) and the panel docked beside it, with a separator to
 * resize the panel (drag, or arrow keys on the focused separator) and a button to collapse it. The
 * width is kept across reloads. On narrow screens (CSS) the two stack, the panel below.
 */
import { type ReactNode, useEffect, useRef, useState } from "react";

const MIN = 280;
const MAX_SHARE = 0.7;
const STORED = "panel-width";

function initialWidth(): number {
  const stored = Number(localStorage.getItem(STORED));
  return Number.isFinite(stored) && stored >= MIN ? stored : 440;
}

export function Dock({
  main,
  panel,
  openOn,
}: {
  main: ReactNode;
  panel: ReactNode;
  /** Something the panel must show (a question for the agent): a hidden panel opens. */
  openOn?: ((listener: () => void) => () => void) | undefined;
}) {
  const [width, setWidth] = useState(initialWidth);
  const [collapsed, setCollapsed] = useState(() => localStorage.getItem("panel-collapsed") === "1");
  useEffect(() => openOn?.(() => setCollapsed(false)), [openOn]);
  const dragging = useRef(false);
  const clamp = (w: number) => Math.round(Math.min(Math.max(w, MIN), window.innerWidth * MAX_SHARE));
  useEffect(() => localStorage.setItem(STORED, String(width)), [width]);
  useEffect(() => localStorage.setItem("panel-collapsed", collapsed ? "1" : "0"), [collapsed]);

  return (
    <div
      className={`dock${collapsed ? " collapsed" : ""}`}
      style={{ "--panel-width": `${width}px` } as React.CSSProperties}
    >
      <div className="dock-main">{main}</div>
      {/* biome-ignore lint/a11y/useSemanticElements: a focusable, draggable window splitter (WAI-ARIA separator) */}
      <div
        className="dock-separator"
        role="separator"
        aria-orientation="vertical"
        aria-label="Resize the panel"
        aria-controls="agent-panel"
        aria-valuemin={MIN}
        aria-valuemax={Math.round(window.innerWidth * MAX_SHARE)}
        aria-valuenow={width}
        tabIndex={collapsed ? -1 : 0}
        hidden={collapsed}
        onKeyDown={(event) => {
          const step = event.shiftKey ? 80 : 20;
          if (event.key === "ArrowLeft") setWidth((w) => clamp(w + step));
          else if (event.key === "ArrowRight") setWidth((w) => clamp(w - step));
          else return;
          event.preventDefault();
        }}
        onPointerDown={(event) => {
          dragging.current = true;
          event.currentTarget.setPointerCapture(event.pointerId);
        }}
        onPointerMove={(event) => {
          if (dragging.current) setWidth(clamp(window.innerWidth - event.clientX));
        }}
        onPointerUp={() => {
          dragging.current = false;
        }}
      />
      <aside className="dock-panel" id="agent-panel" aria-label="Agent panel" tabIndex={-1}>
        <button
          type="button"
          className="collapse"
          aria-expanded={!collapsed}
          aria-controls="agent-panel-body"
          onClick={() => setCollapsed((c) => !c)}
        >
          {collapsed ? "Show panel" : "Hide panel"}
        </button>
        <div id="agent-panel-body" hidden={collapsed}>
          {panel}
        </div>
      </aside>
    </div>
  );
}
