// Writes one Parquet data file for an Iceberg table: the Parquet schema carries the Iceberg
// field ids (readers map columns by id, not by name), values are converted to the spec's
// physical representation, and the column metrics Iceberg keeps in manifests are computed
// from the values written (value, null and NaN counts, lower/upper bounds, column sizes).
import { ByteWriter, parquetWrite } from 'hyparquet-writer';
import { parquetMetadata } from 'hyparquet';
import { gzipSync } from 'node:zlib';
import type { IcebergField, IcebergType } from './field-types.ts';
import { decimalUnscaled, toBigInt, toMicros } from './values.ts';
import { decimalRequiredBytes, serializeSingleValue } from './single-value.ts';

export interface ColumnMetrics {
  columnSizes: Map<number, bigint>;
  valueCounts: Map<number, bigint>;
  nullValueCounts: Map<number, bigint>;
  nanValueCounts: Map<number, bigint>;
  lowerBounds: Map<number, Uint8Array>;
  upperBounds: Map<number, Uint8Array>;
}

export interface ParquetDataFile {
  bytes: Uint8Array;
  recordCount: number;
  metrics: ColumnMetrics;
  /** Byte offsets of row groups (the manifest's split_offsets). */
  splitOffsets: bigint[];
}

type SchemaElement = Record<string, unknown>;

/**
 * `created_by` in the form parquet-mr's VersionParser reads (`<app> version <v> (build <hash>)`):
 * a value it cannot parse makes Spark ignore the row-group statistics of string and decimal
 * columns. Kept equal to package.json's version by a unit test; no build hash (data files
 * written by the same version stay byte-identical whatever commit built the bundle).
 */
export const PARQUET_CREATED_BY = 'pipec version 0.1.0 (build unknown)';

/** String bounds are truncated like Iceberg's default metrics mode `truncate(16)`. */
const TRUNCATE_CHARS = 16;

function decimalParams(t: string): { precision: number; scale: number } | null {
  const m = /^decimal\((\d+),\s*(\d+)\)$/.exec(t);
  return m ? { precision: Number(m[1]), scale: Number(m[2]) } : null;
}

function primitiveElement(name: string, t: string, required: boolean, fieldId: number): SchemaElement {
  const base = { name, repetition_type: required ? 'REQUIRED' : 'OPTIONAL', field_id: fieldId };
  const dec = decimalParams(t);
  if (dec) {
    const physical = dec.precision <= 9 ? { type: 'INT32' } : dec.precision <= 18 ? { type: 'INT64' } : { type: 'FIXED_LEN_BYTE_ARRAY', type_length: decimalRequiredBytes(dec.precision) };
    return { ...base, ...physical, converted_type: 'DECIMAL', precision: dec.precision, scale: dec.scale };
  }
  switch (t) {
    case 'boolean':
      return { ...base, type: 'BOOLEAN' };
    case 'int':
      return { ...base, type: 'INT32' };
    case 'long':
      return { ...base, type: 'INT64' };
    case 'float':
      return { ...base, type: 'FLOAT' };
    case 'double':
      return { ...base, type: 'DOUBLE' };
    case 'date':
      return { ...base, type: 'INT32', converted_type: 'DATE' };
    case 'string':
      return { ...base, type: 'BYTE_ARRAY', converted_type: 'UTF8' };
    case 'binary':
      return { ...base, type: 'BYTE_ARRAY' };
    case 'timestamp':
    case 'timestamptz':
      return { ...base, type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: t === 'timestamptz', unit: 'MICROS' } };
    default:
      throw new Error(`the Parquet writer has no mapping for Iceberg type ${t}`);
  }
}

function schemaElements(name: string, type: IcebergType, required: boolean, fieldId: number, out: SchemaElement[]): void {
  const repetition = required ? 'REQUIRED' : 'OPTIONAL';
  if (typeof type === 'string') {
    out.push(primitiveElement(name, type, required, fieldId));
  } else if (type.type === 'struct') {
    out.push({ name, repetition_type: repetition, num_children: type.fields.length, field_id: fieldId });
    for (const f of type.fields) schemaElements(f.name, f.type, f.required, f.id, out);
  } else if (type.type === 'list') {
    out.push({ name, repetition_type: repetition, converted_type: 'LIST', num_children: 1, field_id: fieldId });
    out.push({ name: 'list', repetition_type: 'REPEATED', num_children: 1 });
    schemaElements('element', type.element, type['element-required'], type['element-id'], out);
  } else {
    out.push({ name, repetition_type: repetition, converted_type: 'MAP', num_children: 1, field_id: fieldId });
    out.push({ name: 'key_value', repetition_type: 'REPEATED', num_children: 2 });
    schemaElements('key', type.key, true, type['key-id'], out);
    schemaElements('value', type.value, type['value-required'], type['value-id'], out);
  }
}

/** Converts one value to what hyparquet-writer expects for the Parquet physical type. */
function physicalValue(type: IcebergType, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof type === 'string') {
    const dec = decimalParams(type);
    if (dec) return decimalUnscaled(v as string | bigint | number, dec.scale);
    if (type === 'long') return toBigInt(v as number | bigint);
    if (type === 'timestamp' || type === 'timestamptz') return toMicros(v as number | bigint);
    return v;
  }
  if (type.type === 'struct') {
    const o = v as Record<string, unknown>;
    return Object.fromEntries(type.fields.map((f) => [f.name, physicalValue(f.type, o[f.name])]));
  }
  if (type.type === 'list') return (v as unknown[]).map((e) => physicalValue(type.element, e));
  const entries = v instanceof Map ? [...v.entries()] : Object.entries(v as Record<string, unknown>);
  return entries.map(([k, val]) => ({ key: physicalValue(type.key, k), value: physicalValue(type.value, val) }));
}

function compare(type: string, a: unknown, b: unknown): number {
  if (type === 'string') return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
  if (type === 'binary') return Buffer.compare(Buffer.from(a as Uint8Array), Buffer.from(b as Uint8Array));
  if (type === 'boolean') return Number(a) - Number(b);
  const dec = decimalParams(type);
  if (dec || type === 'long' || type === 'timestamp' || type === 'timestamptz') {
    const x = dec ? decimalUnscaled(a as string, dec.scale) : type === 'long' ? toBigInt(a as number) : toMicros(a as number);
    const y = dec ? decimalUnscaled(b as string, dec.scale) : type === 'long' ? toBigInt(b as number) : toMicros(b as number);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return (a as number) - (b as number);
}

/** An upper bound for values starting with `prefix`: the prefix with its last code point incremented. */
function truncatedUpper(s: string): string | null {
  const cps = Array.from(s).slice(0, TRUNCATE_CHARS);
  for (let i = cps.length - 1; i >= 0; i--) {
    const cp = cps[i]!.codePointAt(0)!;
    if (cp < 0x10ffff && !(cp >= 0xd7ff && cp < 0xe000)) return cps.slice(0, i).join('') + String.fromCodePoint(cp + 1);
  }
  return null;
}

function topLevelMetrics(fields: IcebergField[], rows: Record<string, unknown>[], m: ColumnMetrics): void {
  for (const f of fields) {
    const n = BigInt(rows.length);
    let nulls = 0n;
    let nans = 0n;
    let lo: unknown = undefined;
    let hi: unknown = undefined;
    const t = f.type;
    for (const row of rows) {
      const v = row[f.name];
      if (v === null || v === undefined) {
        nulls++;
        continue;
      }
      if (typeof t !== 'string') continue;
      if ((t === 'float' || t === 'double') && Number.isNaN(v)) {
        nans++;
        continue;
      }
      if (lo === undefined || compare(t, v, lo) < 0) lo = v;
      if (hi === undefined || compare(t, v, hi) > 0) hi = v;
    }
    m.valueCounts.set(f.id, n);
    m.nullValueCounts.set(f.id, nulls);
    if (t === 'float' || t === 'double') m.nanValueCounts.set(f.id, nans);
    if (typeof t !== 'string' || lo === undefined) continue;
    if (t === 'string') {
      const lower = Array.from(lo as string).slice(0, TRUNCATE_CHARS).join('');
      m.lowerBounds.set(f.id, serializeSingleValue(t, lower));
      const upper = Array.from(hi as string).length <= TRUNCATE_CHARS ? (hi as string) : truncatedUpper(hi as string);
      if (upper !== null) m.upperBounds.set(f.id, serializeSingleValue(t, upper));
    } else if (t !== 'binary') {
      m.lowerBounds.set(f.id, serializeSingleValue(t, lo));
      m.upperBounds.set(f.id, serializeSingleValue(t, hi));
    }
  }
}

/** Codecs this writer produces; zstd needs Node 22's zlib, so tables ask for snappy or gzip. */
export type ParquetCodec = 'UNCOMPRESSED' | 'SNAPPY' | 'GZIP';

export interface ParquetWriteOptions {
  codec: ParquetCodec;
  rowGroupRows?: number;
}

export function writeParquetDataFile(fields: IcebergField[], rows: Record<string, unknown>[], opts: ParquetWriteOptions): ParquetDataFile {
  const schema: SchemaElement[] = [{ name: 'table', num_children: fields.length }];
  for (const f of fields) schemaElements(f.name, f.type, f.required, f.id, schema);
  // BOOLEAN leaves are written PLAIN (bit-packed), as parquet-mr does: hyparquet-writer would
  // choose RLE past 16 values, which Spark's vectorised reader refuses. The option is per
  // top-level column, so a nested column with a boolean leaf has all its leaves PLAIN.
  const columnData = fields.map((f) => ({
    name: f.name,
    data: rows.map((r) => physicalValue(f.type, r[f.name])),
    ...(hasBooleanLeaf(f.type) ? { encoding: 'PLAIN' as const } : {}),
  }));
  const writer = new ByteWriter();
  parquetWrite({
    writer,
    columnData,
    schema: schema as never,
    codec: opts.codec,
    compressors: { GZIP: (input: Uint8Array) => new Uint8Array(gzipSync(input)) },
    rowGroupSize: opts.rowGroupRows ?? 100_000,
    statistics: true,
    createdBy: PARQUET_CREATED_BY,
  } as never);
  const buffer = writer.getBuffer();
  const meta = parquetMetadata(buffer);
  const metrics: ColumnMetrics = {
    columnSizes: new Map(),
    valueCounts: new Map(),
    nullValueCounts: new Map(),
    nanValueCounts: new Map(),
    lowerBounds: new Map(),
    upperBounds: new Map(),
  };
  const idByPath = leafIds(fields);
  const splitOffsets: bigint[] = [];
  for (const rg of meta.row_groups) {
    const first = rg.columns[0];
    if (first?.meta_data) splitOffsets.push(BigInt(first.meta_data.dictionary_page_offset ?? first.meta_data.data_page_offset));
    for (const col of rg.columns) {
      const md = col.meta_data;
      if (!md) continue;
      const id = idByPath.get(md.path_in_schema.join('.'));
      if (id === undefined) continue;
      metrics.columnSizes.set(id, (metrics.columnSizes.get(id) ?? 0n) + BigInt(md.total_compressed_size));
    }
  }
  topLevelMetrics(fields, rows, metrics);
  return { bytes: new Uint8Array(buffer), recordCount: rows.length, metrics, splitOffsets };
}

function hasBooleanLeaf(type: IcebergType): boolean {
  if (typeof type === 'string') return type === 'boolean';
  if (type.type === 'struct') return type.fields.some((f) => hasBooleanLeaf(f.type));
  if (type.type === 'list') return hasBooleanLeaf(type.element);
  return hasBooleanLeaf(type.key) || hasBooleanLeaf(type.value);
}

/** Parquet leaf path (`tags.list.element`) → Iceberg field id of that leaf. */
function leafIds(fields: IcebergField[]): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (prefix: string, type: IcebergType, id: number): void => {
    if (typeof type === 'string') out.set(prefix, id);
    else if (type.type === 'struct') for (const f of type.fields) walk(`${prefix}.${f.name}`, f.type, f.id);
    else if (type.type === 'list') walk(`${prefix}.list.element`, type.element, type['element-id']);
    else {
      walk(`${prefix}.key_value.key`, type.key, type['key-id']);
      walk(`${prefix}.key_value.value`, type.value, type['value-id']);
    }
  };
  for (const f of fields) walk(f.name, f.type, f.id);
  return out;
}
