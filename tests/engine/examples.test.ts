/**
 * The workflows the editor's start page offers to begin with (web/src/editor/examples.ts) are valid
 * workflow files and run, with their inputs' defaults, to what their descriptions promise: created and
 * run through the server as the editor does it.
 */
import { describe, expect, it } from "vitest";
import { WORKFLOW_EXAMPLES } from "../../web/src/editor/examples.ts";
import { readWorkflowFile, workflowFile } from "../../web/src/editor/workflow-file.ts";
import { startTestServer, WORKFLOWS } from "../support/server.ts";
import { answerValue, type JobResult, openRun } from "./support.ts";

const EXPECTED: Record<string, Record<string, unknown>> = {
  Greeting: { greeting: "Hello, world!" },
  "Word count": { words: 9 },
  "Circle area": { area: Math.PI * 4 },
  "Table totals": {
    drinks: [
      { item: "tea", kind: "drink", price: "3" },
      { item: "coffee", kind: "drink", price: "2.5" },
    ],
    total: 5.5,
  },
};

describe("the workflows to start from", () => {
  it("are workflow files Import reads back as they are", () => {
    expect(WORKFLOW_EXAMPLES.map((example) => example.name)).toEqual(Object.keys(EXPECTED));
    for (const example of WORKFLOW_EXAMPLES) {
      const read = readWorkflowFile(workflowFile(example, example.graph).text, "example.json");
      expect(read).toEqual({ name: example.name, description: example.description, graph: example.graph });
    }
  });

  it("run to what they promise with their inputs' defaults", async () => {
    await using server = await startTestServer();
    const { call } = await openRun(server, "auto");
    for (const example of WORKFLOW_EXAMPLES) {
      const created = answerValue<{ id: string }>(await call(WORKFLOWS, "create", [example]));
      const job = answerValue<JobResult>(await call(WORKFLOWS, "run", [created.id]));
      expect({ name: example.name, status: job.status, outputs: job.outputs }).toEqual({
        name: example.name,
        status: "completed",
        outputs: EXPECTED[example.name],
      });
    }
  });
});
