/** The canvas's edges keep their objects while unchanged, so React Flow draws only what changed. */
import { describe, expect, it } from "vitest";
import { edgesOf } from "../../web/src/editor/flow-edges.ts";

const edge = (id: string, source: string, target: string) => ({
  id,
  source,
  sourceHandle: "output",
  target,
  targetHandle: "a",
});

describe("edgesOf", () => {
  it("keeps an unchanged edge's object; a chosen, rewired or new one gets its own", () => {
    const graphEdges = [edge("e1", "n1", "n2"), edge("e2", "n2", "n3"), edge("e3", "n3", "n4")];
    const first = edgesOf(graphEdges, new Set(), []);
    expect(first.map((e) => e.selected)).toEqual([false, false, false]);
    expect(first[0]?.ariaLabel).toBe("Connection from n1 output to n2 a");

    const again = edgesOf(graphEdges, new Set(), first);
    expect(again.every((e, i) => e === first[i])).toBe(true);

    const next = edgesOf(
      [graphEdges[0], { ...edge("e2", "n1", "n3") }, graphEdges[2], edge("e4", "n4", "n5")].filter(
        (e) => e !== undefined,
      ),
      new Set(["e3"]),
      again,
    );
    expect(next[0]).toBe(first[0]);
    expect(next[1]).not.toBe(first[1]);
    expect(next[1]?.source).toBe("n1");
    expect(next[2]).not.toBe(first[2]);
    expect(next[2]?.selected).toBe(true);
    expect(next[3]?.id).toBe("e4");
  });
});
