/**
 * The names of the person's assets, for where the page shows one it knows only by id (a job's outputs
 * and inputs, a run's outcome, an action's result): `red.png`, not `asset ast_0f3c…`. Each name is read
 * once per page, by a `HEAD` of the asset's own address (the file's name is in its
 * `Content-Disposition`), which answers in the app and in a widget alike and only for the asset's
 * owner; an id that answers nothing keeps showing as the id. Assets are never renamed, so a name read
 * stays true.
 */
import { useEffect, useSyncExternalStore } from "react";
import { ASSET_ID, AssetRef } from "../../shared/protocol/values.ts";
import { ExternalStore } from "./external-store.ts";
import { pageFetch } from "./page-fetch.ts";

/** Text that is an asset's id (a run input that picks an asset holds one as text). */
export const isAssetId = (value: unknown): value is string => typeof value === "string" && ASSET_ID.test(value);

/** The file name in a `Content-Disposition` header: the exact `filename*` when there is one. */
export function dispositionName(header: string | null): string | undefined {
  if (!header) return undefined;
  const exact = header.match(/filename\*=UTF-8''([^;]+)/i)?.[1];
  if (exact) {
    try {
      return decodeURIComponent(exact);
    } catch {
      // A malformed escape: the plain name below.
    }
  }
  return header.match(/filename="([^"]*)"/i)?.[1] || undefined;
}

/** The snapshot is a count of names read, so a reader draws again when one arrives. */
class AssetNames extends ExternalStore<number> {
  /** A name read, or null for an id that answered none (another user's, deleted, not an asset). */
  readonly #names = new Map<string, string | null>();

  constructor() {
    super(0);
  }

  nameOf = (id: string): string | undefined => this.#names.get(id) ?? undefined;

  /** Reads the names of those ids not asked for yet. */
  want(ids: Iterable<string>): void {
    for (const id of ids) {
      if (this.#names.has(id)) continue;
      this.#names.set(id, null);
      void pageFetch(`/assets/${id}`, { method: "HEAD" })
        .then((res) => (res.ok ? dispositionName(res.headers.get("content-disposition")) : undefined))
        .catch(() => undefined)
        .then((name) => {
          if (name === undefined) return;
          this.#names.set(id, name);
          this.publish(this.getSnapshot() + 1);
        });
    }
  }
}

const names = new AssetNames();

/** Every asset a value names: its asset references, and text that is an asset's id. */
function assetIds(value: unknown, found = new Set<string>(), depth = 0): Set<string> {
  if (value instanceof AssetRef) found.add(value.id);
  else if (isAssetId(value)) found.add(value);
  else if (value && typeof value === "object" && !(value instanceof Uint8Array) && depth < 8 && found.size < 50) {
    for (const item of Object.values(value)) assetIds(item, found, depth + 1);
  }
  return found;
}

/** Looks up an asset's name by id, once read */
export type NameOf = (id: string) => string | undefined;

/**
 * The names of the assets a value names, read as needed: a lookup that gives a name once it has
 * arrived (the component draws again then) and undefined before.
 */
export function useAssetNames(value: unknown): NameOf {
  useSyncExternalStore(names.subscribe, names.getSnapshot);
  const ids = [...assetIds(value)].join(" ");
  useEffect(() => {
    if (ids) names.want(ids.split(" "));
  }, [ids]);
  return names.nameOf;
}
