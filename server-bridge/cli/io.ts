/** Where a CLI command writes: its answer on stdout, usage and refusals on stderr (the process's own, or a test's). */
export interface Io {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}
