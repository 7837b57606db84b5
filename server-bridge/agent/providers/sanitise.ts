/**
 * Makes a provider's error text safe to store and show. Providers echo keys back (OpenAI's "Incorrect
 * API key provided: sk-proj-****abcd"), proxies answer HTML pages, and SDK texts can carry URLs with
 * query strings or local paths. Everything key-like becomes `[redacted]`: the configured key itself
 * (and its long prefix and suffix), `sk-...` / `sk-ant-...` keys whole or masked, `Bearer` tokens,
 * `api_key=...` pairs, any masked run (`****`, `...` or `…` inside a token) and long opaque tokens;
 * URLs keep only their scheme and host; host paths become `[path]`; the result is one line, capped.
 */

export const PROVIDER_TEXT_MAX = 300;

/** Characters a key is made of (masks included). */
const KEY_CHAR = String.raw`[A-Za-z0-9_\-*…]`;

const RULES: [RegExp, string][] = [
  // sk-..., sk-proj-..., sk-ant-api03-..., sk-or-v1-..., sk-...abcd, sk-****: dots only inside the token.
  [new RegExp(String.raw`\bsk-(?:${KEY_CHAR}|\.(?=${KEY_CHAR}|\.))*`, "g"), "[redacted]"],
  [/\b(Bearer|Basic|Token)\s+[^\s"',;]+/gi, "$1 [redacted]"],
  [
    /\b((?:x-)?api[_-]?key|access[_-]?token|auth[_-]?token|secret|password)(["']?\s*[:=]\s*["']?)[^\s"',;&]+/gi,
    "$1$2[redacted]",
  ],
  // A masked token of any shape: letters around three or more stars or an ellipsis.
  [/[A-Za-z0-9_-]*(?:\*{3,}|…|\.{3})[A-Za-z0-9_\-*.…]*[A-Za-z0-9_*-]/g, "[redacted]"],
  [/\bAIza[0-9A-Za-z_-]{20,}/g, "[redacted]"],
  [/[A-Za-z0-9_\-+/=]{40,}/g, "[redacted]"],
];

const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'`<>)\]]*/gi;
const UNIX_PATH = /(^|[\s"'`(=:,[])\/(?:[\w.\-@~+]+\/)+[\w.\-@~+]*/g;
const WINDOWS_PATH = /\b[A-Za-z]:\\[^\s"'`]*/g;

/**
 * `text` with every secret in `secrets` (the configured keys) and everything key-like removed, URLs
 * cut to their origin, host paths dropped, whitespace folded, at most `max` characters.
 */
export function sanitiseProviderText(
  text: string,
  secrets: readonly (string | undefined)[] = [],
  max = PROVIDER_TEXT_MAX,
): string {
  let out = text.replace(/<[^>]*>/g, " ");
  out = out.replace(URL_PATTERN, (url) => {
    try {
      const parsed = new URL(url);
      return parsed.protocol === "http:" || parsed.protocol === "https:"
        ? `${parsed.protocol}//${parsed.host}`
        : "[url]";
    } catch {
      return "[url]";
    }
  });
  for (const secret of secrets) {
    if (!secret || secret.length < 6) continue;
    out = out.split(secret).join("[redacted]");
    // A masked echo keeps the key's head or tail: a long enough piece of either is redacted too.
    if (secret.length >= 20) {
      out = out.split(secret.slice(0, 10)).join("[redacted]");
      out = out.split(secret.slice(-8)).join("[redacted]");
    }
  }
  for (const [pattern, replacement] of RULES) out = out.replace(pattern, replacement);
  out = out.replace(UNIX_PATH, "$1[path]").replace(WINDOWS_PATH, "[path]");
  out = out.replace(/\s+/g, " ").trim();
  return out.length > max ? `${out.slice(0, max - 1)}…` : out;
}
