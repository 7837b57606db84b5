/**
 * Fetches of the page's own server outside the API (`/types/...`): with the login cookie in the app,
 * with the credential as a bearer token in a widget's iframe (which has no cookie, and keeps its
 * credential in memory only: set once it is exchanged).
 */
let credential: string | undefined;

export function setPageCredential(value: string): void {
  credential = value;
}

export function pageFetch(path: string): Promise<Response> {
  return fetch(path, {
    credentials: "same-origin",
    ...(credential === undefined ? {} : { headers: { authorization: `Bearer ${credential}` } }),
  });
}
