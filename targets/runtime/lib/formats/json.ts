// `format = 'json'`: one JSON object per message value; the generated decoder reads its
// fields by column name. Kept to one parse and two checks: it is the benchmarked path.
import { FAIL, type ChangeRecords, type Decoded, type FormatDecoder } from './types.ts';

export class JsonDecoder implements FormatDecoder {
  readonly prepare = null;
  reason = '';
  readonly changes: ChangeRecords = { n: 0, records: [], kinds: [] };

  decode(value: Buffer | null): Decoded {
    if (value === null) {
      this.reason = 'null value (tombstone)';
      return FAIL;
    }
    let obj: unknown;
    try {
      obj = JSON.parse(value.toString('utf8'));
    } catch (e) {
      this.reason = `not valid JSON: ${(e as Error).message}`;
      return FAIL;
    }
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
      this.reason = 'not a JSON object';
      return FAIL;
    }
    return obj;
  }

  raw(value: Buffer | null): string {
    return value === null ? '' : value.toString('utf8');
  }
}
