/** The providers the server's configuration names (OpenAI-compatible and Anthropic), in that order. */
import type { AgentConfig } from "../../config.ts";
import { createAnthropicProvider } from "./anthropic.ts";
import { createOpenAIProvider } from "./openai.ts";
import type { ProviderAdapter } from "./types.ts";

export function createProviders(config: AgentConfig): ProviderAdapter[] {
  const providers: ProviderAdapter[] = [];
  if (config.openaiBaseUrl || config.openaiApiKey) {
    providers.push(createOpenAIProvider({ baseUrl: config.openaiBaseUrl, apiKey: config.openaiApiKey }));
  }
  if (config.anthropicApiKey) {
    providers.push(createAnthropicProvider({ baseUrl: config.anthropicBaseUrl, apiKey: config.anthropicApiKey }));
  }
  return providers;
}
