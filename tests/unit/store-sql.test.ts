/** One SQL text for both stores: the placeholders SQLite reads, as Postgres numbers them. */
import { describe, expect, it } from "vitest";
import { translate } from "../../server-bridge/store/postgres.ts";

describe("SQL placeholders for Postgres", () => {
  it("numbers ? in order and reuses one number per @name", () => {
    expect(translate("INSERT INTO t (a, b, c) VALUES (@a, @b, ?) ON CONFLICT DO UPDATE SET a = @a")).toEqual({
      text: "INSERT INTO t (a, b, c) VALUES ($1, $2, $3) ON CONFLICT DO UPDATE SET a = $1",
      slots: ["a", "b", 0],
    });
  });

  it("leaves ? and @ inside quoted text alone", () => {
    expect(translate(`SELECT '?', "@x", x FROM t WHERE a = ? AND b LIKE '%@%' AND c = ?`)).toEqual({
      text: `SELECT '?', "@x", x FROM t WHERE a = $1 AND b LIKE '%@%' AND c = $2`,
      slots: [0, 1],
    });
  });
});
