// `format = 'json'`: one JSON object per message value; the generated decoder reads its
// fields by column name. When the source says which keys its decoder reads, only those are
// read from the bytes (json-fields.ts); otherwise one parse and two checks.
import { isUtf8 } from 'node:buffer';
import { JsonFieldReader, NOT_TAKEN } from './json-fields.ts';
import { FAIL, type ChangeRecords, type Decoded, type FormatDecoder } from './types.ts';

/**
 * Parses a message value that must be one JSON object; on failure records why in
 * `into.reason` and returns FAIL. Shared by `json` and `debezium-json`.
 */
export function parseJsonObject(value: Buffer, into: { reason: string }): Record<string, unknown> | typeof FAIL {
  // Invalid UTF-8 would decode to U+FFFD silently: the value is not the text it claims to be.
  if (!isUtf8(value)) {
    into.reason = 'not valid UTF-8';
    return FAIL;
  }
  let obj: unknown;
  try {
    obj = JSON.parse(value.toString('utf8'));
  } catch (e) {
    into.reason = `not valid JSON: ${(e as Error).message}`;
    return FAIL;
  }
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    into.reason = 'not a JSON object';
    return FAIL;
  }
  return obj as Record<string, unknown>;
}

export class JsonDecoder implements FormatDecoder {
  readonly prepare = null;
  reason = '';
  readonly changes: ChangeRecords = { n: 0, records: [], kinds: [] };
  private readonly fields: JsonFieldReader | null;

  /** `reads`: the only keys the source's decoder reads (SourceDef.reads), when it says; `timestamps`: those of TIMESTAMP columns. */
  constructor(reads?: readonly string[], timestamps?: ReadonlySet<string>) {
    this.fields = reads === undefined ? null : new JsonFieldReader(reads, timestamps);
  }

  decode(value: Buffer | null): Decoded {
    if (value === null) {
      this.reason = 'null value (tombstone)';
      return FAIL;
    }
    // Only the decoder's keys, from the bytes; what the reader leaves is parsed whole (and its error named).
    if (this.fields !== null && isUtf8(value)) {
      const obj = this.fields.read(value, 0, value.length);
      if (obj !== NOT_TAKEN) return obj;
    }
    return parseJsonObject(value, this);
  }

  raw(value: Buffer | null): string {
    return value === null ? '' : value.toString('utf8');
  }
}
