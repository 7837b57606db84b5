/**
 * The panel's tabs (WAI-ARIA tabs: arrow keys, Home and End move between them). Every tab's content
 * stays mounted and is hidden when another is chosen, so an editor keeps its state. Adding a tab (the
 * agent conversation) is one more entry in `tabs`.
 */
import type { ReactNode } from "react";
import { useRef } from "react";

export interface PanelTab {
  id: string;
  label: string;
  content: ReactNode;
  /** The content takes the panel's whole height, and scrolls its own parts (the conversation). */
  fill?: boolean;
}

export interface PanelTabsProps {
  tabs: readonly PanelTab[];
  /** None while the page is still finding out which tab to start on: every panel is hidden. */
  selected: string | undefined;
  onSelect(id: string): void;
}

export function PanelTabs({ tabs, selected, onSelect }: PanelTabsProps) {
  const list = useRef<HTMLDivElement>(null);
  const move = (to: number) => {
    const tab = tabs[(to + tabs.length) % tabs.length];
    if (!tab) return;
    onSelect(tab.id);
    list.current?.querySelector<HTMLElement>(`#tab-${tab.id}`)?.focus();
  };
  const index = Math.max(
    0,
    tabs.findIndex((t) => t.id === selected),
  );
  return (
    <>
      <div
        className="tabs"
        role="tablist"
        aria-label="Panel"
        ref={list}
        onKeyDown={(event) => {
          const keys: Record<string, number> = {
            ArrowRight: index + 1,
            ArrowLeft: index - 1,
            Home: 0,
            End: tabs.length - 1,
          };
          const to = keys[event.key];
          if (to === undefined) return;
          event.preventDefault();
          move(to);
        }}
      >
        {tabs.map((tab, i) => (
          <button
            key={tab.id}
            id={`tab-${tab.id}`}
            type="button"
            role="tab"
            aria-selected={tab.id === selected}
            aria-controls={`tabpanel-${tab.id}`}
            data-label={tab.label}
            tabIndex={i === index ? 0 : -1}
            onClick={() => onSelect(tab.id)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      {tabs.map((tab) => (
        <div
          key={tab.id}
          id={`tabpanel-${tab.id}`}
          role="tabpanel"
          aria-labelledby={`tab-${tab.id}`}
          hidden={tab.id !== selected}
          className={tab.fill ? "tabpanel fill" : "tabpanel"}
        >
          {tab.content}
        </div>
      ))}
    </>
  );
}
