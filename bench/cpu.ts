/**
 * CPU time of processes, from /proc (Linux): what a bench's work cost the machine, beside its wall time.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";

/** USER_HZ on Linux: /proc/<pid>/stat counts CPU time in these ticks. */
const TICKS_PER_SECOND = 100;

/** Whether this machine has /proc to read (the figures are left out elsewhere). */
export const hasProc = existsSync("/proc/self/stat");

/** user + system CPU seconds of one process (0 once it is gone). */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** CPU seconds of every live process whose name (`comm`) starts with one of `names`, or that is one of `pids`. */
export function cpuSecondsOf(names: readonly string[], pids: readonly number[] = []): number {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    try {
      const comm = readFileSync(`/proc/${entry}/comm`, "utf8");
      if (pids.includes(pid) || names.some((name) => comm.startsWith(name))) total += cpuSeconds(pid);
    } catch {
      // gone meanwhile
    }
  }
  return total;
}
