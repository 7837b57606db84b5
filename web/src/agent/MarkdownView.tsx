/**
 * The model's text, rendered as the Markdown it is written in (GFM: lists, tables, code, emphasis,
 * links), as chat panels do. The text is the model's, so it may carry what an injected instruction
 * wrote: raw HTML is never rendered (react-markdown shows none of it), links open in a new tab with no
 * referrer and no access to this page, only http(s) and mailto links are links, and an image is never
 * fetched (a URL the model wrote can carry data out): it shows as a link the person may open.
 * A code block has `Copy the code`, and, in the panel, a JavaScript one (or one importing the sandbox's
 * capabilities) `Edit in Action tab`, as a step's code has.
 * Its own chunk (the parser is a sixth of the page's script), loaded by Markdown.tsx.
 */
import { type ReactNode, useContext } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import remarkGfm from "remark-gfm";
import { CopyButton } from "./CopyButton.tsx";
import { OpenInAction } from "./StepCard.tsx";

const SAFE_URL = /^(https?:|mailto:)/i;

function safeHref(url: string | undefined): string | undefined {
  return url && SAFE_URL.test(url.trim()) ? url : undefined;
}

const components: Components = {
  a: ({ href, children }) => {
    const safe = safeHref(href);
    return safe ? (
      <a href={safe} target="_blank" rel="noopener noreferrer nofollow">
        {children}
      </a>
    ) : (
      <span>{children}</span>
    );
  },
  pre: ({ node, children }) => (
    <CodeBlock code={textOf(node)} language={languageOf(node)}>
      {children}
    </CodeBlock>
  ),
  img: ({ src, alt }) => {
    const safe = typeof src === "string" ? safeHref(src) : undefined;
    const label = `image: ${alt || src || "untitled"}`;
    return safe ? (
      <a href={safe} target="_blank" rel="noopener noreferrer nofollow">
        {label}
      </a>
    ) : (
      <span>{label}</span>
    );
  },
};

/** The text of a parsed (hast) node: its text nodes' values, in order. */
function textOf(node: unknown): string {
  if (typeof node !== "object" || node === null) return "";
  const { value, children } = node as { value?: unknown; children?: unknown };
  if (typeof value === "string") return value;
  return Array.isArray(children) ? children.map(textOf).join("") : "";
}

/** The fence's language (`language-js` on its code element), lower-case, or "". */
function languageOf(pre: unknown): string {
  const code = (pre as { children?: { properties?: { className?: unknown } }[] } | undefined)?.children?.[0];
  const classes = code?.properties?.className;
  const named = Array.isArray(classes) ? classes.find((c) => typeof c === "string" && c.startsWith("language-")) : "";
  return typeof named === "string" ? named.slice("language-".length).toLowerCase() : "";
}

const ACTION_LANGUAGES = new Set(["js", "javascript", "mjs", "jsx"]);

function CodeBlock({ code, language, children }: { code: string; language: string; children: ReactNode }) {
  const openInAction = useContext(OpenInAction);
  const action = ACTION_LANGUAGES.has(language) || code.includes("@nodetool-ai/sandbox-nodetool/");
  return (
    <div className="code-block">
      <pre>{children}</pre>
      <div className="code-tools">
        <CopyButton text={code.replace(/\n$/, "")} label="Copy the code" />
        {action && openInAction ? (
          <button type="button" onClick={() => openInAction(code.replace(/\n$/, ""))}>
            Edit in Action tab
          </button>
        ) : null}
      </div>
    </div>
  );
}

export default function MarkdownView({ text }: { text: string }) {
  return (
    <ReactMarkdown remarkPlugins={[remarkGfm]} components={components}>
      {text}
    </ReactMarkdown>
  );
}
