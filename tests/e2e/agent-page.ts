/** Helpers for the agent panel's browser tests: the server's agent config for a fake model server, a scripted action, sending a message. */
import type { Page } from "playwright-core";
import type { AgentConfig } from "../../server-bridge/config.ts";
import type { FakeModelServer } from "../support/fake-models.ts";

export const KEY = "sk-e2e-9f8e7d6c5b4a39281706SECRET";

export function agent(fake: FakeModelServer, extra: Partial<AgentConfig> = {}): AgentConfig {
  return {
    openaiBaseUrl: fake.url,
    openaiApiKey: KEY,
    stepTokens: 1000,
    threadTokens: 1_000_000,
    dailyTokens: 1_000_000,
    stepCap: 20,
    ...extra,
  };
}

/** A scripted execute_code call (low risk unless `extra` says otherwise). */
export const action = (code: string, extra: Record<string, unknown> = {}) => ({
  name: "execute_code",
  arguments: JSON.stringify({ risk: "low", description: "an action", code, ...extra }),
});

export async function send(page: Page, text: string) {
  const box = page.getByRole("textbox", { name: "Message" });
  await box.fill(text);
  await box.press("Enter");
}

export function conversation(page: Page) {
  return page.getByRole("region", { name: "Conversation" });
}

/** Chooses `item` in the conversation's `More` menu. */
export async function conversationAction(page: Page, item: "Rename" | "Export" | "Delete"): Promise<void> {
  await page.getByRole("button", { name: "More conversation actions" }).click();
  await page.getByRole("menu", { name: "Conversation actions" }).getByRole("menuitem", { name: item }).click();
}
