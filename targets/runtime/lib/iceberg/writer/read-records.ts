// Reads a table's Parquet data file back into the writer's value model (values.ts) without
// loss, so rows can be written again unchanged (copy-on-write rewrites) or compared by key:
// decimals as exact unscaled bigints (hyparquet would turn them into floating-point numbers),
// timestamps as bigint microseconds, dates as epoch days, binary as bytes. Columns are found
// by name, which is how this writer names them (the Iceberg field names).
import { gunzipSync } from 'node:zlib';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import type { IcebergField, IcebergType } from './field-types.ts';
import { readBytes } from './file-io.ts';

type Rec = Record<string, unknown>;

/** Parquet schema elements (hyparquet's FileMetaData) with decimal annotations removed. */
function rawDecimals(meta: { schema: Record<string, unknown>[] }): unknown {
  return {
    ...meta,
    schema: meta.schema.map((el) => {
      const lt = el.logical_type as { type?: string } | undefined;
      if (el.converted_type !== 'DECIMAL' && lt?.type !== 'DECIMAL') return el;
      const { converted_type: _c, logical_type: _l, ...rest } = el;
      return rest;
    }),
  };
}

/** A raw decimal cell (INT32 number, INT64 bigint, or big-endian two's-complement bytes) → unscaled bigint. */
function unscaled(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return BigInt(v);
  const bytes = v as Uint8Array;
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  if (bytes.length > 0 && (bytes[0]! & 0x80) !== 0) n -= 1n << BigInt(8 * bytes.length);
  return n;
}

/** One cell as hyparquet read it (decimals raw, timestamps bigint µs) → the writer's value. */
function toWriterValue(t: IcebergType, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof t === 'string') {
    if (/^decimal\(/.test(t)) return unscaled(v);
    if (t === 'long') return typeof v === 'bigint' ? v : BigInt(v as number);
    if (t === 'binary' && typeof v === 'string') return new TextEncoder().encode(v);
    return v;
  }
  if (t.type === 'list') return (v as unknown[]).map((x) => toWriterValue(t.element, x));
  if (t.type === 'map') {
    const entries = v instanceof Map ? [...v] : Object.entries(v as Rec);
    return new Map(entries.map(([k, x]) => [toWriterValue(t.key, k), toWriterValue(t.value, x)]));
  }
  const o = v as Rec;
  return Object.fromEntries(t.fields.map((f) => [f.name, toWriterValue(f.type, o[f.name])]));
}

/**
 * The rows of a data file, in file order (row i is position i for position deletes), with the
 * given fields only (all top-level columns the file has when `fields` is the table schema).
 * A field the file does not have (added to the table later) reads as null.
 */
export async function readDataFileRecords(location: string, fields: IcebergField[]): Promise<Rec[]> {
  const buf = readBytes(location);
  const file = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
  const metadata = parquetMetadata(file);
  const present = new Set(metadata.schema.map((el) => el.name));
  const columns = fields.filter((f) => present.has(f.name)).map((f) => f.name);
  const rows = (await parquetReadObjects({
    file,
    metadata: rawDecimals(metadata as never),
    columns,
    utf8: false,
    parsers: {
      timestampFromMicroseconds: (v: bigint) => (v === null || v === undefined ? null : BigInt(v)),
      timestampFromMilliseconds: (v: bigint) => (v === null || v === undefined ? null : BigInt(v) * 1000n),
      timestampFromNanoseconds: (v: bigint) => (v === null || v === undefined ? null : BigInt(v) / 1000n),
      dateFromDays: (d: number) => d,
    },
    compressors: { GZIP: (input: Uint8Array) => new Uint8Array(gunzipSync(input)) },
  } as never)) as Rec[];
  return rows.map((r) => Object.fromEntries(fields.map((f) => [f.name, toWriterValue(f.type, r[f.name])])));
}
