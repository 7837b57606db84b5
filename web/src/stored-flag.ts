/** An on/off choice of the person's that stays across reloads (this browser's localStorage). */
import { useState } from "react";

export function useStoredFlag(key: string): [boolean, (on: boolean) => void] {
  const [on, setOn] = useState(() => localStorage.getItem(key) === "1");
  const set = (next: boolean) => {
    setOn(next);
    localStorage.setItem(key, next ? "1" : "0");
  };
  return [on, set];
}
