import { describe, expect, it } from "vitest";
import { ApiTokens } from "../../server-bridge/auth/api-tokens.ts";
import { startTestServer, tempDir } from "../support/server.ts";
import { launchChromium, openApp, WEB_DIR } from "./browser.ts";

describe("signing in from the browser", () => {
  it("explains how to get in without a cookie, and signs in from the printed URL", async () => {
    await using server = await startTestServer({ webDir: WEB_DIR });
    const context = await launchChromium(tempDir("nt-chromium-"));
    try {
      const page = context.pages()[0] ?? (await context.newPage());
      const response = await page.goto(server.url);
      expect(response?.headers()["cross-origin-opener-policy"]).toBe("same-origin");
      expect(response?.headers()["cross-origin-embedder-policy"]).toBe("require-corp");
      expect(response?.headers()["content-security-policy"]).toContain("'wasm-unsafe-eval'");
      await page.getByText("You are not signed in").waitFor();
      expect(await page.getByText("npm start").first().isVisible()).toBe(true);

      // A wrong token: the same page, saying why, and the token gone from the address.
      await page.goto(`${server.url}/?token=not-the-token`);
      await page.getByRole("alert").filter({ hasText: "token is not valid" }).waitFor();
      await page.getByText("You are not signed in").waitFor();
      expect(new URL(page.url()).search).toBe("");
      // An API token opens the API only: said so, and not signed in.
      const admin = await server.app.credentials.identify(server.token);
      const apiToken = (await new ApiTokens(server.app.store).add(admin?.user ?? "", "ci")).token;
      await page.goto(`${server.url}/?token=${encodeURIComponent(apiToken)}`);
      await page.getByRole("alert").filter({ hasText: "API token for scripts" }).waitFor();
      expect(page.url()).not.toContain(apiToken);
      expect((await context.cookies()).find((c) => c.name === "nt_login")).toBeUndefined();

      // The token pasted into the page's own form signs in as the printed address does.
      const field = page.getByLabel("Token", { exact: true });
      expect(await field.getAttribute("type")).toBe("password");
      await field.fill(server.token);
      await page.keyboard.press("Enter");
      await page.getByRole("button", { name: "Run" }).waitFor();
      expect(new URL(page.url()).search).toBe("");
      await context.clearCookies();

      await page.goto(`${server.url}/?token=${server.token}`);
      expect(new URL(page.url()).search).toBe("");
      await page.getByRole("button", { name: "Run" }).waitFor();
      expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
      const cookies = await context.cookies();
      expect(cookies.find((c) => c.name === "nt_login")).toMatchObject({ httpOnly: true, sameSite: "Strict" });
    } finally {
      await context.close();
    }
  });

  it("says whom the page is signed in as: the admin, or another user signed in with their own token", async () => {
    await using app = await openApp();
    const { page, context, server } = app;
    const header = page.getByRole("banner");
    await header.getByText("Signed in as").waitFor();
    const admin = await server.app.store.sql("SELECT name FROM users").get();
    expect(await header.locator(".signed-in").textContent()).toBe(`Signed in as ${(admin as { name: string }).name}`);
    const ada = await server.app.credentials.addUser("Ada Lovelace");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("textbox", { name: "Token" }).waitFor();
    // Signed out, the browser keeps no login cookie either.
    expect((await context.cookies()).find((c) => c.name === "nt_login")).toBeUndefined();
    await page.goto(`${server.url}/?token=${ada.token}`);
    await expect.poll(() => header.locator(".signed-in").textContent()).toBe("Signed in as Ada Lovelace");
    expect(app.problems).toEqual([]);
  });

  it("shows the mode selector of the session", async () => {
    await using app = await openApp();
    const mode = app.page.getByLabel("Mode", { exact: true });
    await mode.waitFor();
    expect(await mode.inputValue()).toBe("default");
    // Each mode says what it does with an action's calls.
    expect(await mode.locator("option").allTextContents()).toEqual([
      "plan: reads only",
      "default: asks before changes",
      "auto: runs without asking",
    ]);
    await mode.selectOption("plan");
    await expect
      .poll(async () => await app.server.app.store.sql("SELECT mode FROM sessions").all(), { timeout: 15_000 })
      .toEqual([{ mode: "plan" }]);
  });
});
