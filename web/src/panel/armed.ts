/**
 * Whether an approval dialog's buttons are live. In the app's own page they are at once. In a widget,
 * framed by a page it cannot trust, only once the dialog has been fully visible for `delayMs`
 * (IntersectionObserver v2's `trackVisibility` where the browser has it: not covered, not transparent,
 * not transformed by the host, and wholly inside the viewport), so a host cannot put the dialog under
 * an overlay and trick a click through it. Losing visibility disarms them again. Without v2 (a browser
 * that lacks it), a timer from the moment the dialog shows, restarted when the tab is hidden.
 */
import { type RefObject, useEffect, useState } from "react";

interface VisibilityObserverInit extends IntersectionObserverInit {
  trackVisibility: boolean;
  delay: number;
}

/** IntersectionObserver v2, where the browser has it. */
export function hasVisibilityTracking(): boolean {
  return typeof IntersectionObserverEntry !== "undefined" && "isVisible" in IntersectionObserverEntry.prototype;
}

export function useArmed(ref: RefObject<Element | null>, delayMs: number | undefined): boolean {
  const [armed, setArmed] = useState(delayMs === undefined);
  useEffect(() => {
    const element = ref.current;
    if (delayMs === undefined || !element) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const start = () => {
      clearTimeout(timer);
      timer = setTimeout(() => setArmed(true), delayMs);
    };
    const stop = () => {
      clearTimeout(timer);
      setArmed(false);
    };
    if (hasVisibilityTracking()) {
      const options: VisibilityObserverInit = { threshold: [1], trackVisibility: true, delay: 100 };
      const observer = new IntersectionObserver((entries) => {
        const entry = entries.at(-1) as (IntersectionObserverEntry & { isVisible?: boolean }) | undefined;
        if (entry?.isVisible && entry.intersectionRatio >= 1) start();
        else stop();
      }, options);
      observer.observe(element);
      return () => {
        observer.disconnect();
        clearTimeout(timer);
      };
    }
    const onVisibility = () => (document.visibilityState === "visible" ? start() : stop());
    onVisibility();
    document.addEventListener("visibilitychange", onVisibility);
    return () => {
      document.removeEventListener("visibilitychange", onVisibility);
      clearTimeout(timer);
    };
  }, [ref, delayMs]);
  return armed;
}
