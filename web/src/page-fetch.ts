/**
 * Reads of the page's own server outside the API (`/types/...`, `/assets/...`): with the login cookie
 * in the app, with the credential as a bearer token in a widget's iframe (which has no cookie, and
 * keeps its credential in memory only: set once it is exchanged). An `<img>` or a link cannot send
 * that header, so in a widget an asset is fetched and shown from a blob URL instead (`usePageUrl`).
 */
import { useEffect, useState } from "react";

let credential: string | undefined;

export function setPageCredential(value: string): void {
  credential = value;
}

export function pageFetch(path: string, init: Pick<RequestInit, "method"> = {}): Promise<Response> {
  return fetch(path, {
    ...init,
    credentials: "same-origin",
    ...(credential === undefined ? {} : { headers: { authorization: `Bearer ${credential}` } }),
  });
}

/**
 * The URL to show one of our server's paths at: the path itself where the cookie goes with it; in a
 * widget, a blob URL of what the path answered (undefined until it has, or when it failed).
 */
export function usePageUrl(path: string): string | undefined {
  const direct = credential === undefined || !path.startsWith("/");
  const [url, setUrl] = useState<string | undefined>(direct ? path : undefined);
  useEffect(() => {
    if (direct) {
      setUrl(path);
      return;
    }
    let blobUrl: string | undefined;
    let stopped = false;
    void pageFetch(path)
      .then((res) => (res.ok ? res.blob() : undefined))
      .then((blob) => {
        if (stopped || !blob) return;
        blobUrl = URL.createObjectURL(blob);
        setUrl(blobUrl);
      })
      .catch(() => {});
    return () => {
      stopped = true;
      if (blobUrl) URL.revokeObjectURL(blobUrl);
    };
  }, [direct, path]);
  return url;
}
