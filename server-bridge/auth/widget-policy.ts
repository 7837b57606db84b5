/**
 * What a widget may do, as pure checks over its registered policy (DESIGN.md section 8a): exact
 * origins, the modules it may mount, its highest mode and its limits. The store (widgets.ts) keeps the
 * policy; the router and the HTTP layer ask these functions. Every refusal is a CodedError whose
 * message says what the widget allows instead.
 */
import { MODULE_NAMES } from "../../shared/capabilities/table.ts";
import { MODES, type Mode } from "../../shared/capabilities/types.ts";
import { CodedError } from "../../shared/protocol/errors.ts";

export interface WidgetPolicy {
  id: string;
  /** The user the widget acts as (its sessions, runs, workflows and conversations are this user's). */
  userId: string;
  /** Exact origins allowed to frame it (`scheme://host[:port]`). */
  origins: string[];
  modules: string[];
  maxMode: Mode;
  /** Actions (runs) its visitors may have running at once. */
  maxActions: number;
  /** Capability calls its visitors may make per minute, together. */
  callsPerMinute: number;
}

export const WIDGET_DEFAULTS = { maxMode: "default", maxActions: 4, callsPerMinute: 600 } as const satisfies Partial<
  Record<keyof WidgetPolicy, unknown>
>;

function refused(message: string): CodedError {
  return new CodedError({ code: "invalid_call", message });
}

/**
 * An origin as a browser sends it (`https://app.example`, `http://localhost:3000`): http or https,
 * no path, query, fragment or credentials. One trailing `/` is accepted, as the address bar shows an
 * origin (`http://localhost:3000/`), and nothing else after it. Returned in its serialised form (lower
 * case, no default port, no slash).
 */
export function parseOrigin(text: string): string {
  const given = text.endsWith("/") ? text.slice(0, -1) : text;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw refused(`"${text}" is not an origin; write it as a browser sends it, e.g. https://app.example.`);
  }
  // The URL parser forgives what an origin must not hold ("?" and "#" with nothing after them, a
  // second slash): the text itself is checked as well as what was parsed from it.
  const bare =
    url.pathname === "/" &&
    !url.search &&
    !url.hash &&
    !url.username &&
    !url.password &&
    !given.endsWith("/") &&
    !/[?#]/.test(given);
  if ((url.protocol !== "https:" && url.protocol !== "http:") || !bare) {
    throw refused(
      `"${text}" is not an exact origin: give scheme, host and port only (e.g. https://app.example or http://localhost:3000), no path, query or credentials.`,
    );
  }
  return url.origin;
}

export function parseOrigins(origins: readonly string[]): string[] {
  if (origins.length === 0) throw refused("A widget needs at least one allowed origin (--origin https://app.example).");
  if (origins.length > 20) throw refused("A widget allows at most 20 origins.");
  return [...new Set(origins.map(parseOrigin))];
}

export function parseModules(modules: readonly string[] | undefined): string[] {
  if (modules === undefined) return [...MODULE_NAMES];
  const unknown = modules.find((m) => !MODULE_NAMES.includes(m));
  if (unknown !== undefined) {
    throw new CodedError({
      code: "unknown_module",
      message: `There is no capability module "${unknown}". Available: ${MODULE_NAMES.join(", ")}.`,
    });
  }
  return [...new Set(modules)];
}

export function parseMode(text: string): Mode {
  if (!(MODES as readonly string[]).includes(text)) {
    throw refused(`"${text}" is not a mode; the highest mode is one of ${MODES.join(", ")}.`);
  }
  return text as Mode;
}

export function parseLimit(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1 || value > 100_000) {
    throw refused(`${name} must be a whole number from 1 to 100000, got ${value}.`);
  }
  return value;
}

const rank = (mode: Mode) => MODES.indexOf(mode);

/** Refuses a mode above the widget's highest one. */
export function requireModeWithin(policy: WidgetPolicy, mode: Mode): void {
  if (rank(mode) > rank(policy.maxMode)) {
    throw new CodedError({
      code: "unauthorized",
      message: `This widget allows at most "${policy.maxMode}" mode; "${mode}" was refused. Its owner sets the highest mode (widget add --max-mode).`,
    });
  }
}

/** The modules a widget session mounts: what it asked for, which must be among the widget's. */
export function modulesWithin(policy: WidgetPolicy, asked: readonly string[] | undefined): string[] {
  if (asked === undefined) return [...policy.modules];
  const outside = asked.find((m) => !policy.modules.includes(m));
  if (outside !== undefined) {
    throw new CodedError({
      code: "unauthorized",
      message: `This widget may not mount "${outside}"; it allows ${policy.modules.join(", ") || "no modules"}.`,
    });
  }
  return [...asked];
}

/** The first mode of a widget session: the one asked for, else `default` capped at the widget's highest. */
export function initialMode(policy: WidgetPolicy, asked: Mode | undefined): Mode {
  if (asked !== undefined) {
    requireModeWithin(policy, asked);
    return asked;
  }
  return rank(policy.maxMode) < rank("default") ? policy.maxMode : "default";
}
