// The contract between a message source (Kafka today) and the value formats: one decoder per
// source, chosen once from its `format`, turning a message value into the record object(s)
// the generated per-source decoder reads by column name.
import type { RowKind } from '../ops/types.ts';

/** `decode` could not read the value: `reason` says why (dead letter). */
export const FAIL: unique symbol = Symbol('format-fail');
/** The value carries nothing to read and is not an error (a Debezium tombstone). */
export const SKIP: unique symbol = Symbol('format-skip');
/** The value is a change event: read `changes` (one or two records, each with its kind). */
export const CHANGES: unique symbol = Symbol('format-changes');

export type Decoded = object | typeof FAIL | typeof SKIP | typeof CHANGES;

/** Records of one change event, reused from message to message (no allocation per event). */
export interface ChangeRecords {
  n: number;
  records: object[];
  kinds: RowKind[];
}

/** Where a message is, for errors that stop the pipeline (`orders-0 offset 42`). */
export type WhereOf = (i: number) => string;

export interface FormatDecoder {
  /**
   * Fetches what `decode` needs for these values (writer schemas by id) before they are
   * decoded; null when the format needs nothing (JSON). Throws a `FormatError` when the
   * pipeline cannot go on (registry unreachable, access refused).
   */
  readonly prepare: ((values: (Buffer | null)[], where: WhereOf) => Promise<void>) | null;
  /** One message value (null = tombstone) → a record object, or one of the symbols above. */
  decode(value: Buffer | null): Decoded;
  /** Why the last `decode` returned FAIL (names the field or schema id). */
  reason: string;
  readonly changes: ChangeRecords;
  /** The value as a dead letter's `record`: text formats as text, binary ones as base64. */
  raw(value: Buffer | null): string;
}

/** A failure that stops the source (not one record's problem): shown to the user as is. */
export class FormatError extends Error {}
