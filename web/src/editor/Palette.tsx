/**
 * The node palette: a searchable list of every node type (a combobox over a listbox: type to filter,
 * arrows to move, Enter to add, Escape to close). Opened by double-clicking the canvas, Ctrl/Cmd+K or
 * `Add node`; opened by dropping a dragged connection on empty canvas, it lists only the types that
 * fit the other end.
 */
import { type MouseEvent as ReactMouseEvent, useEffect, useMemo, useRef, useState } from "react";
import { searchNodeTypes } from "../../../shared/graph/catalog-search.ts";
import { NODE_TYPES, type NodeType } from "../../../shared/graph/node-types.ts";

export interface PaletteChoice {
  type: NodeType;
  /** With a filter: the handle of the new node the dragged connection goes to. */
  handle?: string | undefined;
}

export interface PaletteProps {
  /** Where it opens, in pixels inside the canvas. */
  at: { x: number; y: number };
  /** Only these types (a connection's other end), each with its fitting handle. */
  only?: readonly { type: NodeType; handle: string }[] | undefined;
  onPick(choice: PaletteChoice): void;
  onClose(): void;
}

export function Palette({ at, only, onPick, onClose }: PaletteProps) {
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  // A row follows the pointer only when the pointer moves, never because the list changed under a
  // resting pointer (the typed search keeps its top match for Enter).
  const followPointer = (event: ReactMouseEvent, i: number) => {
    if (event.movementX !== 0 || event.movementY !== 0) setActive(i);
  };
  useEffect(() => input.current?.focus(), []);

  const choices = useMemo<PaletteChoice[]>(() => {
    const pool: PaletteChoice[] = only
      ? only.map((o) => ({ type: o.type, handle: o.handle }))
      : NODE_TYPES.map((type) => ({ type }));
    if (!query.trim()) return pool;
    const ranked = searchNodeTypes(query, NODE_TYPES.length).map((hit) => hit.id);
    return ranked.flatMap((id) => pool.filter((c) => c.type.id === id));
  }, [query, only]);
  const current = Math.min(active, Math.max(0, choices.length - 1));

  return (
    <section
      className="palette"
      aria-label="Node palette"
      style={{ left: at.x, top: at.y }}
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          event.preventDefault();
          event.stopPropagation();
          onClose();
        }
      }}
    >
      <input
        ref={input}
        type="search"
        role="combobox"
        aria-label="Search node types"
        aria-expanded="true"
        aria-controls="palette-list"
        aria-activedescendant={choices[current] ? `palette-${choices[current].type.id}` : undefined}
        placeholder={only ? "Node types that fit this connection" : "Search all node types"}
        value={query}
        onChange={(event) => {
          setQuery(event.target.value);
          setActive(0);
        }}
        onKeyDown={(event) => {
          if (event.key === "ArrowDown") setActive((i) => Math.min(i + 1, choices.length - 1));
          else if (event.key === "ArrowUp") setActive((i) => Math.max(i - 1, 0));
          else if (event.key === "Enter" && choices[current]) onPick(choices[current]);
          else return;
          event.preventDefault();
        }}
        onBlur={(event) => {
          if (!event.currentTarget.closest(".palette")?.contains(event.relatedTarget as Node | null)) onClose();
        }}
      />
      <div id="palette-list" role="listbox" aria-label="Node types" className="palette-list">
        {choices.map((choice, i) => (
          // biome-ignore lint/a11y/useKeyWithClickEvents: keys go to the combobox (aria-activedescendant), as the pattern has it
          <div
            key={choice.type.id}
            id={`palette-${choice.type.id}`}
            role="option"
            aria-selected={i === current}
            tabIndex={-1}
            title={choice.type.description}
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => onPick(choice)}
            onMouseMove={(event) => followPointer(event, i)}
          >
            {choice.type.title} <small>{choice.type.id}</small>
          </div>
        ))}
      </div>
      {choices.length === 0 ? <p className="status">No node type matches.</p> : null}
      <p className="hint">
        {choices.length} of {only ? only.length : NODE_TYPES.length} node types
      </p>
    </section>
  );
}
