/** The first-party library packs, and the one library per process built from them. */
import { csvPack } from "./csv.ts";
import { createLibrary, type LibraryDispatcher } from "./dispatch.ts";
import type { PackManifest } from "./types.ts";
import { zipPack } from "./zip.ts";

export const FIRST_PARTY_PACKS: readonly PackManifest[] = [csvPack, zipPack];

let library: LibraryDispatcher | undefined;

export function defaultLibrary(): LibraryDispatcher {
  library ??= createLibrary(FIRST_PARTY_PACKS);
  return library;
}

export type { LibraryDispatcher } from "./dispatch.ts";
