/**
 * A searchable list in a popover (a combobox over a listbox: type to filter, arrows to move, Enter to
 * pick, Escape or leaving it closes it): the node palette's and the node finder's.
 */
import { type MouseEvent as ReactMouseEvent, useEffect, useMemo, useRef, useState } from "react";

export interface SearchItem {
  id: string;
  label: string;
  /** Shown small after the label. */
  detail?: string | undefined;
  /** The tooltip. */
  title?: string | undefined;
}

export interface SearchListProps {
  /** The popover's name (`Node palette`); its box's id prefix is made from it. */
  name: string;
  /** The search field's name and the list's. */
  searchLabel: string;
  listLabel: string;
  placeholder: string;
  /** Where it opens, in pixels inside the canvas. */
  at: { x: number; y: number };
  /** The items for a query, best first (every one for an empty query). */
  search(query: string): SearchItem[];
  /** How many there are in all, and what they are (`node types`), for "3 of 40 node types". */
  total: number;
  noun: string;
  /** Said when nothing matches. */
  empty: string;
  onPick(id: string): void;
  onClose(): void;
}

export function SearchList(props: SearchListProps) {
  const { name, searchLabel, listLabel, placeholder, at, search, total, noun, empty, onPick, onClose } = props;
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const prefix = name.toLowerCase().replace(/\W+/g, "-");
  // A row follows the pointer only when the pointer moves, never because the list changed under a
  // resting pointer (the typed search keeps its top match for Enter).
  const followPointer = (event: ReactMouseEvent, i: number) => {
    if (event.movementX !== 0 || event.movementY !== 0) setActive(i);
  };
  useEffect(() => input.current?.focus(), []);
  const items = useMemo(() => search(query), [search, query]);
  const current = Math.min(active, Math.max(0, items.length - 1));

  return (
    <section
      className="palette"
      aria-label={name}
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
        aria-label={searchLabel}
        aria-expanded="true"
        aria-controls={`${prefix}-list`}
        aria-activedescendant={items[current] ? `${prefix}-option-${current}` : undefined}
        placeholder={placeholder}
        value={query}
        onChange={(event) => {
          setQuery(event.target.value);
          setActive(0);
        }}
        onKeyDown={(event) => {
          if (event.key === "ArrowDown") setActive((i) => Math.min(i + 1, items.length - 1));
          else if (event.key === "ArrowUp") setActive((i) => Math.max(i - 1, 0));
          else if (event.key === "Enter" && items[current]) onPick(items[current].id);
          else return;
          event.preventDefault();
        }}
        onBlur={(event) => {
          if (!event.currentTarget.closest(".palette")?.contains(event.relatedTarget as Node | null)) onClose();
        }}
      />
      <div id={`${prefix}-list`} role="listbox" aria-label={listLabel} className="palette-list">
        {items.map((item, i) => (
          // biome-ignore lint/a11y/useKeyWithClickEvents: keys go to the combobox (aria-activedescendant), as the pattern has it
          <div
            key={item.id}
            // By place, not by the item's id: a node's id may hold spaces, which an id reference cannot.
            id={`${prefix}-option-${i}`}
            role="option"
            aria-selected={i === current}
            tabIndex={-1}
            title={item.title}
            onMouseDown={(event) => event.preventDefault()}
            onClick={() => onPick(item.id)}
            onMouseMove={(event) => followPointer(event, i)}
          >
            {item.label} {item.detail ? <small>{item.detail}</small> : null}
          </div>
        ))}
      </div>
      {items.length === 0 ? <p className="status">{empty}</p> : null}
      <p className="hint">
        {items.length} of {total} {noun}
      </p>
    </section>
  );
}
