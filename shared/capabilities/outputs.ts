/**
 * Building blocks of the specs' `output` schemas (DESIGN.md section 4). An output schema describes a
 * result as the host holds it, before the boundary encoding: bytes are a `Uint8Array`, an asset an
 * `AssetRef`. Their JSON Schemas show the wire form (`{$bytes}`, `{$asset}`) and carry the TypeScript
 * name the guest sees under `TS_TYPE` (shared/protocol/values.ts), as the arguments' do.
 */
import { z } from "zod";
import { ErrorCode, FailurePayload } from "../protocol/errors.ts";
import { ASSET_SCHEMA, AssetRef, BYTES_SCHEMA, TS_TYPE } from "../protocol/values.ts";

// Any Uint8Array (z.instanceof would type it as one over an ArrayBuffer only, refusing a Buffer's type).
export const BytesOut = z
  .custom<Uint8Array>((value) => value instanceof Uint8Array, "expected a Uint8Array")
  .meta(BYTES_SCHEMA);

export const AssetRefOut = z.instanceof(AssetRef).meta(ASSET_SCHEMA);

/** Any JSON value that is not the user's own (a node type's default, a web response's parsed body). */
export const JsonOut = z.json();
export type JsonValue = z.infer<typeof JsonOut>;

/**
 * The user's own JSON (workflow values, shared results, node data): the one place `z.unknown()` is
 * allowed in an output. tests/unit/output-schemas.test.ts lists every field that uses it.
 */
export const UserJson = z.unknown();

/** An ISO 8601 time, as every result gives times. */
export const IsoTime = z.string().describe("ISO 8601 time");

/** A failure as results carry it (a node's error, a job's error). */
export const FailureOut = z
  .strictObject({ ...FailurePayload.shape, code: ErrorCode.meta({ [TS_TYPE]: "ErrorCode" }) })
  .meta({ id: "Failure", description: "A failure: its code and a message saying what to do" });

/** `{deleted: id}`: what a delete answers. */
export const DeletedOut = z.strictObject({ deleted: z.string() });
