/** Implementation of the `models` namespace: the configured providers' models. */
import { listModels } from "../../shared/capabilities/specs/models.specs.ts";
import { NO_PROVIDER } from "../agent/models.ts";
import { implement } from "./define.ts";

export default [
  implement(listModels, async (run) => {
    const registry = run.services.agent?.models;
    if (!registry?.configured()) return { configured: false, models: [], hint: NO_PROVIDER };
    return { configured: true, models: await registry.list() };
  }),
];
