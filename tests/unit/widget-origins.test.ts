/** `parseOrigin`: what `widget add --origin` accepts as a widget's allowed origin, and what it refuses. */
import { describe, expect, it } from "vitest";
import { parseOrigin } from "../../server-bridge/auth/widget-policy.ts";

describe("parseOrigin", () => {
  it.each([
    ["https://app.example", "https://app.example"],
    ["http://localhost:3000", "http://localhost:3000"],
    // What a browser's address bar shows for the page: one trailing slash, stored without it.
    ["http://localhost:8860/", "http://localhost:8860"],
    ["https://App.Example:443/", "https://app.example"],
    ["http://[::1]:9000/", "http://[::1]:9000"],
  ])("accepts %s as %s", (text, origin) => {
    expect(parseOrigin(text)).toBe(origin);
  });

  it.each([
    "https://app.example/path",
    "https://app.example/path/",
    "https://app.example//",
    "https://app.example/?",
    "https://app.example?",
    "https://app.example/?q=1",
    "https://app.example#",
    "https://app.example/#top",
    "https://user:pw@app.example/",
    "https://user@app.example",
    "ftp://app.example/",
  ])("refuses %s as not an exact origin", (text) => {
    expect(() => parseOrigin(text)).toThrow(/is not an exact origin/);
  });

  it("refuses what is not a URL at all, with an example", () => {
    expect(() => parseOrigin("app.example/")).toThrow(/is not an origin; .*e\.g\. https:\/\/app\.example/);
  });
});
