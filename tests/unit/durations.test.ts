/** How long and how long ago, for a person (shared/protocol/durations.ts). */
import { describe, expect, it } from "vitest";
import { formatBytes, formatMs, timeAgo, timeWithWait } from "../../shared/protocol/durations.ts";

describe("durations", () => {
  it("says how long something took", () => {
    expect(formatMs(180.4)).toBe("180 ms");
    expect(formatMs(4_200)).toBe("4.2 s");
    expect(formatMs(125_000)).toBe("2 min 5 s");
    expect(timeWithWait(180, 41_000)).toBe("180 ms · waited 41.0 s for approval");
    expect(timeWithWait(180, 0)).toBe("180 ms");
  });

  it("says how long ago something happened", () => {
    const now = Date.parse("2026-12-07T12:00:00Z");
    const earlier = (ms: number) => new Date(now - ms).toISOString();
    expect(timeAgo(earlier(20_000), now)).toBe("just now");
    expect(timeAgo(new Date(now + 5_000), now)).toBe("just now");
    expect(timeAgo(earlier(5 * 60_000), now)).toBe("5 min ago");
    expect(timeAgo(earlier(3 * 3_600_000 + 59_000), now)).toBe("3 h ago");
    expect(timeAgo(earlier(30 * 3_600_000), now)).toBe("yesterday");
    expect(timeAgo(earlier(4 * 86_400_000), now)).toBe("4 days ago");
    expect(timeAgo("2026-11-03T12:00:00Z", now)).toMatch(/^on .*2026/);
    expect(timeAgo("not a time", now)).toBe("");
  });
  it("a size in bytes, KiB or MiB", () => {
    expect([0, 1, 150, 1023, 1024, 1025, 1024 * 1024 - 1, 1024 * 1024, 5.5 * 1024 * 1024].map(formatBytes)).toEqual([
      "0 bytes",
      "1 byte",
      "150 bytes",
      "1023 bytes",
      "1 KiB",
      "2 KiB",
      "1024 KiB",
      "1.0 MiB",
      "5.5 MiB",
    ]);
  });
});
