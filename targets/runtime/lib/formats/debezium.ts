// `format = 'debezium-json'`: Debezium change events ({before, after, op, source, ts_ms}, bare
// or inside the JsonConverter's {schema, payload} envelope) → changelog records, as Flink's
// debezium-json reads them: c/r → +I(after); u → -U(before), +U(after); d → -D(before).
// Kafka tombstones (the null value after a delete, for log compaction) are skipped.
// Unlike Flink, an update without 'before' is not an error: it goes out as +U alone.
import type { RowKind } from '../ops/types.ts';
import { decimalValue } from './values.ts';
import { CHANGES, FAIL, SKIP, type ChangeRecords, type Decoded, type FormatDecoder } from './types.ts';
import { parseJsonObject } from './json.ts';

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Kafka Connect / Debezium semantic types whose JSON value is not what the column readers
 * take (epoch milliseconds, decimal text): converted when the envelope carries the schema.
 * Without it, numbers under a TIMESTAMP column are epoch milliseconds (LANGUAGE.md values).
 */
const CONNECT_CONVERSIONS: Readonly<Record<string, (v: unknown, params: Json | undefined) => unknown>> = {
  'io.debezium.time.MicroTimestamp': (v) => (typeof v === 'number' ? Math.floor(v / 1000) : v),
  'io.debezium.time.NanoTimestamp': (v) => (typeof v === 'number' ? Math.floor(v / 1e6) : v),
  'org.apache.kafka.connect.data.Decimal': (v, p) => (typeof v === 'string' ? decimalValue(Buffer.from(v, 'base64'), Number(p?.scale ?? 0)) : v),
  'io.debezium.data.VariableScaleDecimal': (v) =>
    isObj(v) && typeof v.value === 'string' ? decimalValue(Buffer.from(v.value, 'base64'), Number(v.scale ?? 0)) : v,
};

/** A delete must say which row goes: at least its key. */
const NO_BEFORE = "has no 'before' row, so which row it deletes is unknown";

export class DebeziumJsonDecoder implements FormatDecoder {
  readonly prepare = null;
  reason = '';
  readonly changes: ChangeRecords = { n: 0, records: [{}, {}], kinds: ['+I', '+I'] };

  decode(value: Buffer | null): Decoded {
    if (value === null) return SKIP;
    const parsed = parseJsonObject(value, this);
    if (parsed === FAIL) return FAIL;
    let ev: Json = parsed;
    let schema: unknown = null;
    // The JsonConverter with schemas.enable=true wraps every event: {schema, payload}.
    if (!('op' in ev) && 'payload' in ev) {
      schema = ev.schema;
      const payload = ev.payload;
      if (payload === null) return SKIP;
      if (!isObj(payload)) return this.fail("'payload' is not a JSON object");
      ev = payload;
    }
    const op = ev.op;
    const before = ev.before ?? null;
    const after = ev.after ?? null;
    if (before !== null && !isObj(before)) return this.fail("'before' is not a JSON object");
    if (after !== null && !isObj(after)) return this.fail("'after' is not a JSON object");
    if (isObj(schema)) convertBySchema(schema, before, after);
    const c = this.changes;
    switch (op) {
      case 'c':
      case 'r':
        if (after === null) return this.fail(`a '${op}' event without an 'after' row`);
        return this.one(after, '+I');
      case 'u':
        if (after === null) return this.fail("a 'u' event without an 'after' row");
        // Without the old row (PostgreSQL's default replica identity) the update goes out as
        // '+U' alone: the runtime's changelog normalize supplies the old row where needed.
        if (before === null) return this.one(after, '+U');
        c.n = 2;
        c.records[0] = before;
        c.kinds[0] = '-U';
        c.records[1] = after;
        c.kinds[1] = '+U';
        return CHANGES;
      case 'd':
        if (before === null) return this.fail(`the delete ${NO_BEFORE}`);
        return this.one(before, '-D');
      case undefined:
        return this.fail("no 'op' field: not a Debezium change event");
      default:
        return this.fail(`unknown Debezium op ${JSON.stringify(op)} (expected c, r, u or d)`);
    }
  }

  private one(rec: Json, kind: RowKind): Decoded {
    const c = this.changes;
    c.n = 1;
    c.records[0] = rec;
    c.kinds[0] = kind;
    return CHANGES;
  }

  private fail(reason: string): Decoded {
    this.reason = reason;
    return FAIL;
  }

  raw(value: Buffer | null): string {
    return value === null ? '' : value.toString('utf8');
  }
}

/** Applies CONNECT_CONVERSIONS to the row fields whose schema names a semantic type. */
function convertBySchema(schema: Json, before: Json | null, after: Json | null): void {
  const fields = Array.isArray(schema.fields) ? (schema.fields as Json[]) : [];
  const row = fields.find((f) => f?.field === 'after') ?? fields.find((f) => f?.field === 'before');
  const cols = Array.isArray(row?.fields) ? (row.fields as Json[]) : [];
  for (const col of cols) {
    const conv = typeof col?.name === 'string' ? CONNECT_CONVERSIONS[col.name] : undefined;
    if (!conv || typeof col.field !== 'string') continue;
    const params = isObj(col.parameters) ? col.parameters : undefined;
    for (const rec of [before, after]) if (rec !== null && rec[col.field] != null) rec[col.field] = conv(rec[col.field], params);
  }
}
