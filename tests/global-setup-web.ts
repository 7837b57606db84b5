/** Builds the page (dist/web) once before the browser tests run against it. */
import { buildWebIfStale } from "../server-bridge/build.ts";

export default async function setup(): Promise<void> {
  await buildWebIfStale();
}
