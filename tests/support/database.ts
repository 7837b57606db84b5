/** How another process (or a second store in this one) opens the same store as a server on a data directory. */

/** What a child process on `dataDir` needs in its environment to open the same store. */
export async function storeEnv(dataDir: string): Promise<{ DATA_DIR: string }> {
  return { DATA_DIR: dataDir };
}

/** What `configFromEnv` needs to open the same store as a server on `dataDir` (another process's view). */
export async function storeConfig(dataDir: string): Promise<{ dataDir: string }> {
  return { dataDir };
}
