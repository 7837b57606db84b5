/** The note a request carries for attached files (shared/agent/attachments.ts), and the answer it is made from. */
import { describe, expect, it } from "vitest";
import { typeOfFileName } from "../../server-bridge/assets/media-types.ts";
import { attachedAsset, withAttachments } from "../../shared/agent/attachments.ts";

describe("attachments", () => {
  it("names each saved asset on a line of its own after the person's words, or adds nothing", () => {
    const dot = attachedAsset("dot.png", { id: "ast_1", content_type: "image/png", size: 94, url: "/x" });
    const big = attachedAsset("big.csv", { id: "ast_2", content_type: "text/csv", size: 3 * 1024 * 1024 });
    if (!dot || !big) throw new Error("not read");
    expect(withAttachments("  look  ", [dot, big])).toBe(
      "look\n\nAttached (my assets):\n- dot.png: asset ast_1 (image/png, 94 B)\n- big.csv: asset ast_2 (text/csv, 3.0 MB)",
    );
    expect(withAttachments("look", [])).toBe("look");
    expect(withAttachments("", [dot])).toBe("Attached (my assets):\n- dot.png: asset ast_1 (image/png, 94 B)");
  });

  it("reads only an answer that describes a saved asset", () => {
    for (const answer of [null, "ast_1", { id: "", content_type: "a/b", size: 1 }, { id: "ast_1", size: -1 }]) {
      expect(attachedAsset("f", answer)).toBeUndefined();
    }
  });

  it("gives a file from disk the type a browser would, and leaves other extensions to the store", () => {
    expect(typeOfFileName("Photo.JPG")).toBe("image/jpeg");
    expect(typeOfFileName("notes.txt")).toBe("text/plain");
    expect(typeOfFileName("archive.tar.gz")).toBeUndefined();
    expect(typeOfFileName("README")).toBeUndefined();
  });
});
