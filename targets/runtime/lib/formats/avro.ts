// `format = 'avro'`: Avro binary records. With a registry schema (or none) values are in the
// Confluent wire format and each writer schema id gets its own reader: a record of only the
// used columns, resolved against the writer with avsc (unused fields are skipped, never
// materialized), compiled once per id. With a `file:` schema, values are plain Avro binary
// written with that schema (Flink's `avro` format).
import avro from 'avsc';
import type { ColumnDef } from '../io/source-types.ts';
import { norm64, type Int64 } from '../values.ts';
import { HEADER_BYTES, type FetchedSchema } from './confluent.ts';
import { BinaryDecoder } from './binary-decoder.ts';
import { base64, decimalValue, floorDiv } from './values.ts';
import { FAIL, type Decoded } from './types.ts';

// ------------------------------------------------------------------ types the runtime reads with

/**
 * `long` as the runtime's hybrid Int64: a number within 2^53, a BigInt beyond (avsc's own long
 * would lose digits). Reads the zigzag varint itself: up to 7 bytes (49 bits) stays in doubles.
 */
const HybridLong = avro.types.LongType.__with(
  {
    fromBuffer(b: Buffer): Int64 {
      if (b.length <= 7) {
        let n = 0;
        let mul = 1;
        for (let i = 0; i < b.length; i++, mul *= 128) n += (b[i]! & 0x7f) * mul;
        return n % 2 ? -(n + 1) / 2 : n / 2;
      }
      let n = 0n;
      for (let i = b.length - 1; i >= 0; i--) n = (n << 7n) | BigInt(b[i]! & 0x7f);
      return norm64((n >> 1n) ^ -(n & 1n));
    },
    toBuffer(v: Int64): Buffer {
      let n = BigInt(v);
      n = n < 0n ? (-n << 1n) - 1n : n << 1n;
      const out: number[] = [];
      do {
        const b = Number(n & 0x7fn);
        n >>= 7n;
        out.push(n > 0n ? b | 0x80 : b);
      } while (n > 0n);
      return Buffer.from(out);
    },
    fromJSON: (x: unknown): Int64 => (typeof x === 'number' ? x : norm64(BigInt(x as string))),
    toJSON: (v: Int64): number => Number(v),
    isValid: (v: unknown): boolean => (typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint',
    compare: (a: Int64, b: Int64): number => (a < b ? -1 : a > b ? 1 : 0),
  },
  true,
);

/** Avro decimal (bytes or fixed) → the exact value at the schema's scale (decimalValue). */
class DecimalType extends avro.types.LogicalType {
  readonly scale: number;
  constructor(schema: any, opts?: any) {
    super(schema, opts);
    this.scale = Number.isInteger(schema.scale) ? schema.scale : 0;
    if (!Number.isInteger(schema.precision) || schema.precision < 1 || this.scale < 0) throw new Error('invalid decimal');
  }
  override _fromValue(b: Buffer): number | string {
    return decimalValue(b, this.scale);
  }
  override _toValue(v: unknown): unknown {
    return v;
  }
  override _resolve(t: avro.Type): ((v: any) => any) | undefined {
    if (t instanceof DecimalType) return t.scale === this.scale ? (v) => v : undefined;
    const under = this.underlyingType.typeName;
    return t.typeName === under ? (v) => this._fromValue(v) : undefined;
  }
}

/** timestamp-micros/-nanos (and the local- ones) → epoch milliseconds, the runtime's TIMESTAMP. */
function scaledTime(divisor: number) {
  return class extends avro.types.LogicalType {
    override _fromValue(v: Int64): number {
      return floorDiv(v, divisor);
    }
    override _toValue(v: unknown): unknown {
      return v;
    }
    override _resolve(t: avro.Type): ((v: any) => any) | undefined {
      if (t.typeName === this.typeName) return (v) => v;
      return t.typeName === 'long' ? (v) => this._fromValue(v) : undefined;
    }
  };
}

/**
 * Logical types whose raw value is not what the column readers take. The others read as
 * their underlying value: timestamp-millis is epoch ms, date is days, time-* stay integers.
 */
const LOGICAL_TYPES = {
  decimal: DecimalType,
  'timestamp-micros': scaledTime(1000),
  'local-timestamp-micros': scaledTime(1000),
  'timestamp-nanos': scaledTime(1e6),
  'local-timestamp-nanos': scaledTime(1e6),
};

/** Marks the inner parse of a logical type's own schema (which then is its underlying long). */
const UNDERLYING = Symbol('underlying');

/**
 * Every `long` — `"long"`, `{"type": "long"}`, a logical type's underlying long — becomes
 * HybridLong (avsc's registry only replaces the `"long"` name); the long-based logical types
 * of LOGICAL_TYPES are built here so that their underlying long is HybridLong too.
 */
function longHook(schema: any, opts: any): avro.Type | undefined {
  if (schema === 'long') return HybridLong as unknown as avro.Type;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || schema.type !== 'long') return undefined;
  const Logical = (LOGICAL_TYPES as Record<string, new (s: any, o: any) => avro.Type>)[schema.logicalType];
  if (Logical && !schema[UNDERLYING]) {
    try {
      return new Logical({ ...schema, [UNDERLYING]: true }, opts);
    } catch {
      // An invalid logical type reads as its underlying type (the Avro spec).
    }
  }
  return HybridLong as unknown as avro.Type;
}

/** Parses a schema; named types it defines land in `registry` (references come first). */
function parseSchema(schema: unknown, registry: Record<string, avro.Type> = {}): avro.Type {
  return avro.Type.forSchema(schema as avro.Schema, { wrapUnions: false, logicalTypes: LOGICAL_TYPES, registry, typeHook: longHook });
}

// ------------------------------------------------------------------ projection

interface Projection {
  reader: avro.Type;
  resolver: ReturnType<avro.Type["createResolver"]> | null;
  /** Records written with this schema cannot fill a NOT NULL column: why. */
  fail: string | null;
  /** Columns of nested types (ROW, ARRAY, MAP) made plain JSON-friendly data after reading. */
  nested: string[];
  id: number;
}

const NESTED_KINDS = new Set(['row', 'array', 'map']);

/** Finds a field by name: exact first, then ignoring case (unquoted SQL names fold case). */
function findField<F extends { name: string }>(fields: readonly F[], name: string): F | undefined {
  return fields.find((f) => f.name === name) ?? fields.find((f) => f.name.toLowerCase() === name.toLowerCase());
}

/** Reader defaults of the compiled (reader) schema: type and default per field name. */
interface ReaderField {
  name: string;
  type: avro.Type;
  hasDefault: boolean;
  default: unknown;
}

function readerFieldsOf(schemaText: string | null): ReaderField[] {
  if (schemaText === null) return [];
  try {
    const doc = JSON.parse(schemaText) as { fields?: { name: string; default?: unknown }[] };
    const t = parseSchema(doc) as avro.types.RecordType;
    return t.fields.map((f, i) => {
      const raw = doc.fields?.[i];
      return { name: f.name, type: f.type, hasDefault: raw !== undefined && 'default' in raw, default: raw?.default };
    });
  } catch {
    // A registry schema with references does not parse alone: no reader defaults then.
    return [];
  }
}

/** The reader of the used columns against one writer schema. */
function project(writer: avro.Type, cols: ColumnDef[], readerFields: ReaderField[], id: number, what: string): Projection {
  if (!(writer instanceof avro.types.RecordType)) throw new Error(`the top-level Avro type is ${writer.typeName}, not a record`);
  const fields: object[] = [];
  let fail: string | null = null;
  const nested: string[] = [];
  for (const c of cols) {
    if (c.meta !== undefined) continue;
    if (NESTED_KINDS.has(c.kind)) nested.push(c.name);
    const wf = findField(writer.fields, c.name);
    if (wf) {
      // The reader field takes the column's name; the alias finds the writer's spelling.
      fields.push({ name: c.name, ...(wf.name !== c.name ? { aliases: [wf.name] } : {}), type: wf.type });
      continue;
    }
    // Not written by this schema: the reader schema's default, as Avro resolution says;
    // without one the column is NULL, which only a nullable column can be.
    const rf = findField(readerFields, c.name);
    if (rf?.hasDefault) fields.push({ name: c.name, type: rf.type, default: rf.default });
    else if (!c.nullable) fail ??= `field '${c.name}' is not in ${what} and has no default, but the column is NOT NULL`;
  }
  const reader = avro.Type.forSchema({ type: 'record', name: writer.name ?? 'Record', fields } as unknown as avro.Schema, { wrapUnions: false, registry: {} });
  return { reader, resolver: reader.createResolver(writer), fail, nested, id };
}

/** Nested values as plain data: records as objects, bytes as base64 (how JSON carries them). */
function plain(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Uint8Array) return base64(v);
  if (Array.isArray(v)) return v.map(plain);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) out[k] = plain((v as Record<string, unknown>)[k]);
  return out;
}

// ------------------------------------------------------------------ the decoder

export interface AvroDecoderOptions {
  columns: ColumnDef[];
  /** The compiled schema's text (reader defaults; the writer schema of plain `file:` values). */
  schemaText: string | null;
  /** Confluent wire format with writer schemas from this registry; null: plain Avro binary. */
  registryUrl: string | null;
}

export class AvroDecoder extends BinaryDecoder<Projection> {
  private readonly plainProjection: Projection | null;
  /** Last projection used: consecutive records of one schema id skip the map lookup. */
  private last: Projection | null = null;

  constructor(opts: AvroDecoderOptions) {
    const readerFields = readerFieldsOf(opts.schemaText);
    super(opts.registryUrl, (s) => compileWriter(s, opts.columns, readerFields));
    if (opts.registryUrl === null) {
      if (opts.schemaText === null) throw new Error("plain Avro values need the schema's text");
      this.plainProjection = project(parseSchema(JSON.parse(opts.schemaText)), opts.columns, readerFields, -1, 'the writer schema');
    } else this.plainProjection = null;
  }

  decode(value: Buffer | null): Decoded {
    if (value === null) return this.fail('null value (tombstone)');
    let p = this.plainProjection;
    let pos = 0;
    if (p === null) {
      const id = this.schemaIdOf(value);
      if (id === FAIL) return FAIL;
      if (this.last !== null && this.last.id === id) p = this.last;
      else {
        const w = this.writer(id);
        if (w === FAIL) return FAIL;
        p = this.last = w;
      }
      pos = HEADER_BYTES;
    }
    if (p.fail !== null) return this.fail(p.fail);
    let r: { value: any; offset: number };
    try {
      r = p.reader.decode(value, pos, p.resolver ?? undefined);
    } catch (e) {
      return this.fail(`the Avro payload does not match ${schemaName(p)}: ${(e as Error).message}`);
    }
    if (r.offset < 0) return this.fail(`the Avro payload is truncated (${schemaName(p)})`);
    if (r.offset !== value.length) return this.fail(`${value.length - r.offset} bytes follow the Avro record (${schemaName(p)})`);
    const rec = r.value;
    for (const n of p.nested) rec[n] = plain(rec[n]);
    return rec;
  }
}

const schemaName = (p: Projection): string => (p.id < 0 ? 'the writer schema' : `writer schema id ${p.id}`);

function compileWriter(s: FetchedSchema, cols: ColumnDef[], readerFields: ReaderField[]): Projection {
  if (s.main.schemaType !== 'AVRO') throw new Error(`it is a ${s.main.schemaType} schema, not Avro`);
  const registry: Record<string, avro.Type> = {};
  for (const r of s.references) parseSchema(JSON.parse(r.schema.schema), registry);
  const writer = parseSchema(JSON.parse(s.main.schema), registry);
  return project(writer, cols, readerFields, s.id, `writer schema id ${s.id}`);
}
