// Avro object container files (manifests and manifest lists) through `avsc`. Longs are
// bigint-capable (snapshot ids use 63 bits), custom attributes such as `field-id` are kept in
// the header schema, and records read back are normalised to the spec's names by field id,
// so files written by other engines (whose field names may differ) read the same.
import avro from 'avsc';
import { randomBytes } from 'node:crypto';
import { twosComplementToBigInt } from './single-value.ts';

const longType = avro.types.LongType.__with({
  fromBuffer: (buf: Buffer) => {
    const v = buf.readBigInt64LE();
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  },
  toBuffer: (n: number | bigint) => {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(BigInt(n));
    return buf;
  },
  fromJSON: (n: number | string) => (typeof n === 'string' ? BigInt(n) : n),
  toJSON: (n: number | bigint) => (typeof n === 'bigint' ? n.toString() : n),
  isValid: (n: unknown) => typeof n === 'bigint' || Number.isInteger(n),
  compare: (a: number | bigint, b: number | bigint) => (a === b ? 0 : a < b ? -1 : 1),
});

function typeFor(schema: unknown): avro.Type {
  return avro.Type.forSchema(schema as avro.Schema, { registry: { long: longType }, wrapUnions: false } as never);
}

/** The container header (Avro spec "Object Container Files"), written by us so that the
 * schema JSON keeps Iceberg's `field-id` attributes exactly as given. */
const HEADER_TYPE = avro.Type.forSchema({
  type: 'record',
  name: 'org.apache.avro.file.Header',
  fields: [
    { name: 'magic', type: { type: 'fixed', name: 'Magic', size: 4 } },
    { name: 'meta', type: { type: 'map', values: 'bytes' } },
    { name: 'sync', type: { type: 'fixed', name: 'Sync', size: 16 } },
  ],
} as avro.Schema);

export async function encodeAvroContainer(schema: Record<string, unknown>, records: unknown[], metadata: Record<string, string>): Promise<Buffer> {
  const type = typeFor(schema);
  const meta: Record<string, Buffer> = { 'avro.schema': Buffer.from(JSON.stringify(schema)), 'avro.codec': Buffer.from('deflate') };
  for (const [k, v] of Object.entries(metadata)) meta[k] = Buffer.from(v, 'utf8');
  const sync = randomBytes(16);
  const header = HEADER_TYPE.toBuffer({ magic: Buffer.from('Obj\x01', 'latin1'), meta, sync });
  const encoder = new avro.streams.BlockEncoder(type, { codec: 'deflate', syncMarker: sync, writeHeader: 'never' } as never);
  const chunks: Buffer[] = [header];
  const done = new Promise<void>((resolve, reject) => {
    encoder.on('data', (c: Buffer) => chunks.push(c));
    encoder.on('end', () => resolve());
    encoder.on('error', reject);
  });
  for (const r of records) encoder.write(r);
  encoder.end();
  await done;
  return Buffer.concat(chunks);
}

export interface AvroContainer {
  metadata: Record<string, string>;
  schema: Record<string, unknown>;
  records: Record<string, unknown>[];
}

export async function decodeAvroContainer(bytes: Uint8Array): Promise<AvroContainer> {
  const metadata: Record<string, string> = {};
  const decoder = new avro.streams.BlockDecoder({ parseHook: (s: unknown) => typeFor(s) } as never);
  const records: Record<string, unknown>[] = [];
  const done = new Promise<void>((resolve, reject) => {
    decoder.on('metadata', (_type: unknown, _codec: unknown, header: { meta: Record<string, Buffer> }) => {
      for (const [k, v] of Object.entries(header.meta)) metadata[k] = v.toString('utf8');
    });
    decoder.on('data', (r: Record<string, unknown>) => records.push(r));
    decoder.on('end', () => resolve());
    decoder.on('error', reject);
  });
  decoder.end(Buffer.from(bytes));
  await done;
  const schema = JSON.parse(metadata['avro.schema'] ?? '{}') as Record<string, unknown>;
  return { metadata, schema, records: records.map((r) => normalizeByFieldId(r, schema)) };
}

/** Renames fields to the names our schemas use, matching on `field-id`. */
function normalizeByFieldId(value: unknown, schema: unknown): Record<string, unknown> {
  return normalize(value, schema) as Record<string, unknown>;
}

const SPEC_NAMES: Record<number, string> = {
  0: 'status', 1: 'snapshot_id', 3: 'sequence_number', 4: 'file_sequence_number', 2: 'data_file',
  134: 'content', 100: 'file_path', 101: 'file_format', 102: 'partition', 103: 'record_count', 104: 'file_size_in_bytes',
  108: 'column_sizes', 109: 'value_counts', 110: 'null_value_counts', 137: 'nan_value_counts', 125: 'lower_bounds',
  128: 'upper_bounds', 131: 'key_metadata', 132: 'split_offsets', 135: 'equality_ids', 140: 'sort_order_id',
  142: 'first_row_id', 143: 'referenced_data_file', 144: 'content_offset', 145: 'content_size_in_bytes',
  500: 'manifest_path', 501: 'manifest_length', 502: 'partition_spec_id', 517: 'content', 515: 'sequence_number',
  516: 'min_sequence_number', 503: 'added_snapshot_id', 504: 'added_files_count', 505: 'existing_files_count',
  506: 'deleted_files_count', 512: 'added_rows_count', 513: 'existing_rows_count', 514: 'deleted_rows_count',
  507: 'partitions', 519: 'key_metadata', 520: 'first_row_id', 509: 'contains_null', 518: 'contains_nan', 510: 'lower_bound', 511: 'upper_bound',
};

function normalize(value: unknown, schema: unknown, keepNames = false): unknown {
  if (value === null || value === undefined) return value;
  if (Array.isArray(schema)) {
    const nonNull = schema.filter((s) => s !== 'null');
    return nonNull.length === 1 ? normalize(value, nonNull[0], keepNames) : value;
  }
  if (typeof schema !== 'object' || schema === null) return value;
  const s = schema as Record<string, unknown>;
  if (s.type === 'record') {
    const out: Record<string, unknown> = {};
    const rec = value as Record<string, unknown>;
    for (const f of s.fields as Record<string, unknown>[]) {
      const id = f['field-id'] as number | undefined;
      // Partition fields (children of field 102) keep their own names; spec structures are renamed by id.
      const name = keepNames || id === undefined ? (f.name as string) : (SPEC_NAMES[id] ?? (f.name as string));
      out[name] = normalize(rec[f.name as string], f.type, id === 102);
    }
    return out;
  }
  if (s.type === 'array') return (value as unknown[]).map((v) => normalize(v, s.items, keepNames));
  // Decimals (partition values) come back as their unscaled integer, the writer's value model;
  // the bytes' length is the writer's choice (16 in older pipec manifests, the minimum per spec).
  if (s.logicalType === 'decimal' && (s.type === 'fixed' || s.type === 'bytes') && value instanceof Uint8Array) return twosComplementToBigInt(value);
  return value;
}
