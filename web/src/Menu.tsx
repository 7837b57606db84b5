/**
 * A WAI-ARIA menu (the canvas's context menu, the `More` menus of the workflow and the conversation):
 * the first item has focus, the arrow keys, Home and End move, Enter runs an item, Escape (or Tab)
 * closes it and focus goes back where it was; a press elsewhere, or the wheel, closes it. `MenuButton`
 * is the button that opens one: Enter, Space or ArrowDown open it on its first item, ArrowUp on its
 * last, and focus comes back to the button when it closes.
 */
import { type RefObject, useEffect, useLayoutEffect, useRef, useState } from "react";

export interface MenuItem {
  label: string;
  /** The keys that do the same, shown beside it. */
  keys?: string | undefined;
  /** What it does; absent: not possible now (shown, disabled). */
  run: (() => void) | undefined;
}

export interface MenuProps {
  label: string;
  items: readonly MenuItem[];
  /** `refocus`: give focus back to what had it when the menu opened. */
  onClose(refocus: boolean): void;
  /** Places the menu once drawn (absent: its CSS places it). */
  place?: ((menu: HTMLElement) => void) | undefined;
  className: string;
  /** Opens with the last item focused (ArrowUp on a menu button). */
  last?: boolean | undefined;
  /** The menu button that opened it: a press on it is its own (it closes the menu), not "elsewhere". */
  opener?: RefObject<HTMLElement | null> | undefined;
}

/** The items that can be chosen now, in order. */
function enabledItems(menu: HTMLElement | null): HTMLElement[] {
  return [...(menu?.querySelectorAll<HTMLElement>('[role="menuitem"]:not([aria-disabled="true"])') ?? [])];
}

export function Menu({ label, items, onClose, place, className, last, opener }: MenuProps) {
  const menu = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    if (menu.current && place) place(menu.current);
  }, [place]);
  useEffect(() => {
    const all = enabledItems(menu.current);
    (last ? all[all.length - 1] : all[0])?.focus();
  }, [last]);
  // A press anywhere else closes it (focus stays where that press puts it), as a wheel does.
  const close = useRef(onClose);
  close.current = onClose;
  useEffect(() => {
    const outside = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!menu.current?.contains(target) && !opener?.current?.contains(target)) close.current(false);
    };
    // What it opened over moving under it (the canvas zooming or panning) would leave it pointing at nothing.
    const moved = () => close.current(false);
    document.addEventListener("pointerdown", outside, true);
    document.addEventListener("wheel", moved, true);
    return () => {
      document.removeEventListener("pointerdown", outside, true);
      document.removeEventListener("wheel", moved, true);
    };
  }, [opener]);

  return (
    <div
      ref={menu}
      role="menu"
      aria-label={label}
      className={`menu ${className}`}
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
            // Focus goes back first: what the item does may move it on (the palette, a pasted node, a dialog).
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

export interface MenuButtonProps {
  /** The button's accessible name (it shows `More ▾`). */
  label: string;
  /** The menu's accessible name. */
  menuLabel: string;
  items: readonly MenuItem[];
  /** The button (a dialog an item opens gives focus back to it). */
  button: RefObject<HTMLButtonElement | null>;
}

/** Opened under its button, right edges aligned (CSS); where that would leave the window (a narrow one), left edges. */
function keepInView(menu: HTMLElement): void {
  if (menu.getBoundingClientRect().left >= 4) return;
  menu.style.right = "auto";
  menu.style.left = "0";
}

export function MenuButton({ label, menuLabel, items, button }: MenuButtonProps) {
  const [open, setOpen] = useState<"first" | "last" | undefined>();
  return (
    <span className="menu-button">
      <button
        ref={button}
        type="button"
        aria-label={label}
        aria-haspopup="menu"
        aria-expanded={open !== undefined}
        onClick={() => setOpen((now) => (now ? undefined : "first"))}
        onKeyDown={(event) => {
          if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
          event.preventDefault();
          setOpen(event.key === "ArrowUp" ? "last" : "first");
        }}
      >
        More ▾
      </button>
      {open ? (
        <Menu
          label={menuLabel}
          className="button-menu"
          last={open === "last"}
          opener={button}
          place={keepInView}
          onClose={(back) => {
            setOpen(undefined);
            if (back) button.current?.focus();
          }}
          items={items}
        />
      ) : null}
    </span>
  );
}
