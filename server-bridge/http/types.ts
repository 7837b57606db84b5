/**
 * `GET /types/<module>.d.ts` and `GET /types/index.d.ts`: the TypeScript declarations actions are
 * checked against (shared/declarations), for editors and scripts. One block per capability module or
 * library pack; the index is the globals and every module and pack in one file; `/types/index.json`
 * is the same as data (the page's editor completes from it). Authenticated like the
 * API (`/trpc`): the login cookie from our own origin, or an API (or admin) token as a bearer token. The text depends only on this
 * server's specs.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { MODULE_NAMES } from "../../shared/capabilities/table.ts";
import { declarationBundle, moduleDeclaration, packDeclaration } from "../../shared/declarations/modules.ts";
import { typesIndex } from "../../shared/declarations/types-index.ts";
import type { AppServices } from "../app-services.ts";
import { defaultLibrary } from "../packs/index.ts";
import { API_CALLERS, bindsToPage, identify, isForeign } from "./guard.ts";
import { BASE_HEADERS, refuse, sendError, sendJson } from "./respond.ts";

const TYPES_PATH = /^\/types\/([a-z][a-z0-9_]*)\.d\.ts$/;
/** The same declarations as data, for the page's editor (shared/declarations/model.ts). */
const INDEX_JSON = "/types/index.json";

export function isTypesPath(pathname: string): boolean {
  return pathname.startsWith("/types/");
}

/** The declaration text a name serves, or undefined. */
export function typesText(name: string): string | undefined {
  const library = defaultLibrary();
  const packs = library.packInfo([...library.names]);
  if (name === "index") return declarationBundle(MODULE_NAMES, packs);
  if (MODULE_NAMES.includes(name)) return moduleDeclaration(name);
  const pack = packs.find((p) => p.name === name);
  return pack ? packDeclaration(pack) : undefined;
}

export async function serveTypes(app: AppServices, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const caller = await identify(app, req, API_CALLERS);
  if (!caller) {
    refuse(
      res,
      401,
      "unauthorized",
      "Missing or invalid credentials: sign in through the URL `npm start` printed, or send Authorization: Bearer <API token>.",
      { "WWW-Authenticate": 'Bearer realm="nodetool"' },
    );
    return;
  }
  if (bindsToPage(caller) && isForeign(req)) {
    refuse(res, 403, "unauthorized", "Cross-origin requests are refused.");
    return;
  }
  if (url.pathname === INDEX_JSON) {
    const library = defaultLibrary();
    sendJson(res, 200, typesIndex(MODULE_NAMES, library.packInfo([...library.names])), {
      "Cache-Control": "private, no-cache",
    });
    return;
  }
  const name = TYPES_PATH.exec(url.pathname)?.[1];
  const text = name === undefined ? undefined : typesText(name);
  if (text === undefined) {
    const library = defaultLibrary();
    const known = ["index", ...MODULE_NAMES, ...library.names].map((n) => `/types/${n}.d.ts`).join(", ");
    sendError(res, 404, "unknown_module", `There are no declarations at ${url.pathname}. There are: ${known}.`);
    return;
  }
  res.writeHead(200, {
    ...BASE_HEADERS,
    "Content-Type": "application/typescript; charset=utf-8",
    "Cache-Control": "private, no-cache",
  });
  res.end(req.method === "HEAD" ? undefined : text);
}
