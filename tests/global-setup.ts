/** Builds what the tests start for real (the Node sandbox worker entry) once, before any test file runs. */
import { buildNodeWorker } from "../server-bridge/sandbox/build.ts";

export default async function setup(): Promise<void> {
  await buildNodeWorker({ force: true });
}
