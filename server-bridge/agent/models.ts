/**
 * The configured model providers and their models. A model id names its provider:
 * `openai:gpt-4o-mini`, `anthropic:claude-sonnet-4-5` (the model part may itself hold colons or
 * slashes, as Ollama's and OpenRouter's do). The default is `AGENT_MODEL` (with or without the
 * provider), else the first model the first provider lists. Lists are cached for a minute.
 */
import type { AgentConfig } from "../config.ts";
import type { ProviderAdapter } from "./providers/types.ts";

export interface ModelInfo {
  id: string;
  provider: ProviderAdapter["id"];
  model: string;
  default: boolean;
}

const CACHE_MS = 60_000;

const SET_PROVIDER =
  "Set OPENAI_BASE_URL (an OpenAI-compatible server such as a local Ollama: http://127.0.0.1:11434/v1) and OPENAI_API_KEY if it needs one, or ANTHROPIC_API_KEY; optionally AGENT_MODEL";

/** What to tell a person when no provider is configured: exactly which variables to set. */
export const NO_PROVIDER = `No model provider is configured on the server. ${SET_PROVIDER}; then restart the server.`;

/** The same for the terminal agent, which reads the variables itself when it starts. */
export const NO_PROVIDER_HERE = `No model provider is configured. ${SET_PROVIDER} in the environment, then run this again.`;

export class ModelRegistry {
  #cached: { at: number; models: ModelInfo[] } | undefined;

  constructor(
    private readonly adapters: readonly ProviderAdapter[],
    private readonly config: Pick<AgentConfig, "model">,
  ) {}

  configured(): boolean {
    return this.adapters.length > 0;
  }

  /** For the start banner, from the configuration alone (no network): the providers and the default asked for. */
  where(): string {
    if (!this.configured()) {
      return "none (set OPENAI_BASE_URL, e.g. a local Ollama, or ANTHROPIC_API_KEY to use the agent panel)";
    }
    const providers = this.adapters.map((a) => `${a.id} at ${a.host}`).join(", ");
    return this.config.model ? `${providers}, AGENT_MODEL ${this.config.model}` : providers;
  }

  /**
   * For the log once the server is up: the default model and how many each provider lists, or what
   * looks wrong: a provider that lists none (not running, a wrong URL), or an AGENT_MODEL none lists
   * (a typo, a model not pulled yet). A turn's own error says more.
   */
  async report(): Promise<{ ok: boolean; text: string }> {
    const listed = await Promise.all(
      this.adapters.map(async (a) => ({ a, names: await a.listModels().catch(() => [] as string[]) })),
    );
    const silent = listed.filter(({ names }) => names.length === 0).map(({ a }) => `${a.id} at ${a.host}`);
    if (silent.length > 0) {
      return {
        ok: false,
        text: `${silent.join(", ")} lists no models: is it running, and is its URL right? The agent's first turn will say what failed.`,
      };
    }
    const preferred = this.config.model;
    const known = listed.flatMap(({ a, names }) => names.flatMap((n) => [n, `${a.id}:${n}`]));
    if (preferred && !known.includes(preferred)) {
      return {
        ok: false,
        text: `AGENT_MODEL ${preferred} is not among the models the providers list (models.list() names them); turns will still try it.`,
      };
    }
    const chosen = (await this.list()).find((m) => m.default);
    const counts = listed.map(({ a, names }) => `${a.id} ${names.length}`).join(", ");
    return { ok: true, text: `default model ${chosen?.id ?? "(none)"}; models listed: ${counts}` };
  }

  async list(): Promise<ModelInfo[]> {
    if (this.#cached && Date.now() - this.#cached.at < CACHE_MS) return this.#cached.models;
    const listed = await Promise.all(
      this.adapters.map(async (adapter) => ({ adapter, models: await adapter.listModels().catch(() => []) })),
    );
    const models: ModelInfo[] = listed.flatMap(({ adapter, models }) =>
      models.map((model) => ({ id: `${adapter.id}:${model}`, provider: adapter.id, model, default: false })),
    );
    const preferred = this.config.model;
    if (preferred && !models.some((m) => m.id === preferred || m.model === preferred)) {
      // The configured default is offered even when its provider does not list it.
      const named = this.#split(preferred);
      const adapter = named ? this.adapters.find((a) => a.id === named.provider) : this.adapters[0];
      if (adapter) {
        const model = named?.model ?? preferred;
        models.unshift({ id: `${adapter.id}:${model}`, provider: adapter.id, model, default: false });
      }
    }
    const chosen = models.find((m) => m.id === preferred || m.model === preferred) ?? models[0];
    if (chosen) chosen.default = true;
    this.#cached = { at: Date.now(), models };
    return models;
  }

  /** The adapter and model for `requested` (a listed id), or the default; an error text otherwise. */
  async resolve(requested?: string | null): Promise<{ adapter: ProviderAdapter; model: string; id: string } | string> {
    if (!this.configured()) return NO_PROVIDER;
    const models = await this.list();
    const info = requested ? models.find((m) => m.id === requested) : models.find((m) => m.default);
    if (!info) {
      if (requested) {
        // A model the provider does not list may still be served (a local server's alias): try it.
        const named = this.#split(requested);
        const adapter = named && this.adapters.find((a) => a.id === named.provider);
        if (adapter && named) return { adapter, model: named.model, id: requested };
        return `There is no model "${requested.slice(0, 100)}" here; models.list() names the ones offered.`;
      }
      return "The configured providers list no models; set AGENT_MODEL to the model to use.";
    }
    const adapter = this.adapters.find((a) => a.id === info.provider);
    if (!adapter) return NO_PROVIDER;
    return { adapter, model: info.model, id: info.id };
  }

  #split(id: string): { provider: ProviderAdapter["id"]; model: string } | undefined {
    const at = id.indexOf(":");
    const provider = at > 0 ? id.slice(0, at) : "";
    if (provider !== "openai" && provider !== "anthropic") return undefined;
    return { provider, model: id.slice(at + 1) };
  }
}
