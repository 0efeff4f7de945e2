// Manifest files (the data and delete files of a snapshot, with their partition values and
// column metrics) and manifest-list entries (one per manifest, with partition summaries).
import type { PartitionFieldSpec } from './field-types.ts';
import type { IcebergField } from './field-types.ts';
import type { ColumnMetrics } from './parquet-data-file.ts';
import { manifestEntrySchema, MANIFEST_FILE_SCHEMA, MANIFEST_FILE_SCHEMA_V3 } from './manifest-schemas.ts';
import { encodeAvroContainer, decodeAvroContainer } from './avro-container.ts';
import { serializeSingleValue } from './single-value.ts';
import { transformResultType } from './transforms.ts';
import { decimalUnscaled } from './values.ts';
import { decimalFixedBytes, decimalRequiredBytes } from './single-value.ts';
import type { Id } from './metadata-json.ts';

export const STATUS = { EXISTING: 0, ADDED: 1, DELETED: 2 } as const;
export const CONTENT = { DATA: 0, POSITION_DELETES: 1, EQUALITY_DELETES: 2 } as const;

export interface DataFile {
  content: number;
  filePath: string;
  /** Data and position-delete files are Parquet; deletion vectors (v3) live in Puffin files. */
  fileFormat: 'PARQUET' | 'PUFFIN';
  /** Partition field name → transformed value (null for a null source value). */
  partition: Record<string, unknown>;
  recordCount: number;
  fileSizeInBytes: number;
  metrics: ColumnMetrics | null;
  splitOffsets: bigint[] | null;
  equalityIds: number[] | null;
  sortOrderId: number | null;
  /** v3 data files: `_row_id` of the first row; null for new files (inherited from the manifest). */
  firstRowId?: Id | null;
  /** Deletion vectors: the one data file they delete rows of, and where the blob is. */
  referencedDataFile?: string | null;
  contentOffset?: number | null;
  contentSizeInBytes?: number | null;
}

export interface ManifestEntry {
  status: number;
  snapshotId: Id | null;
  sequenceNumber: Id | null;
  fileSequenceNumber: Id | null;
  dataFile: DataFile;
}

export interface ManifestListEntry {
  manifest_path: string;
  manifest_length: number;
  partition_spec_id: number;
  content: number;
  sequence_number: Id;
  min_sequence_number: Id;
  added_snapshot_id: Id;
  added_files_count: number;
  existing_files_count: number;
  deleted_files_count: number;
  added_rows_count: number;
  existing_rows_count: number;
  deleted_rows_count: number;
  partitions: { contains_null: boolean; contains_nan: boolean | null; lower_bound: Buffer | null; upper_bound: Buffer | null }[] | null;
  key_metadata: null;
  /** v3 data manifests: the first row id their files inherit from (null: not assigned yet). */
  first_row_id?: Id | null;
}

export interface SpecContext {
  schema: { 'schema-id': number; fields: IcebergField[] };
  spec: { 'spec-id': number; fields: PartitionFieldSpec[] };
  formatVersion: number;
}

function sourceType(ctx: SpecContext, sourceId: number): string {
  const f = ctx.schema.fields.find((x) => x.id === sourceId);
  if (!f || typeof f.type !== 'string') throw new Error(`partition source field ${sourceId} is not a primitive column`);
  return f.type;
}

export function partitionResultTypes(ctx: SpecContext): (PartitionFieldSpec & { resultType: string })[] {
  return ctx.spec.fields.map((p) => ({ ...p, resultType: transformResultType(p.transform.replace(/\[.*$/, ''), sourceType(ctx, p['source-id'])) }));
}

const mapEntries = <V>(m: Map<number, V> | undefined, conv: (v: V) => unknown) =>
  m && m.size ? [...m.entries()].sort(([a], [b]) => a - b).map(([key, value]) => ({ key, value: conv(value) })) : null;

function avroPartitionValue(resultType: string, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (resultType === 'long' || resultType === 'timestamp' || resultType === 'timestamptz') return BigInt(v as number);
  const dec = /^decimal\((\d+),\s*(\d+)\)$/.exec(resultType);
  if (dec) return decimalFixedBytes(decimalUnscaled(v as string | bigint, Number(dec[2])), decimalRequiredBytes(Number(dec[1])));
  if (resultType === 'binary') return Buffer.from(v as Uint8Array);
  return v;
}

function toAvroEntry(e: ManifestEntry, parts: (PartitionFieldSpec & { resultType: string })[], formatVersion: number): Record<string, unknown> {
  const f = e.dataFile;
  const m = f.metrics;
  return {
    status: e.status,
    snapshot_id: e.snapshotId,
    sequence_number: e.sequenceNumber,
    file_sequence_number: e.fileSequenceNumber,
    data_file: {
      content: f.content,
      file_path: f.filePath,
      file_format: f.fileFormat,
      partition: Object.fromEntries(parts.map((p) => [p.name, avroPartitionValue(p.resultType, f.partition[p.name])])),
      record_count: f.recordCount,
      file_size_in_bytes: f.fileSizeInBytes,
      column_sizes: mapEntries(m?.columnSizes, (v) => v),
      value_counts: mapEntries(m?.valueCounts, (v) => v),
      null_value_counts: mapEntries(m?.nullValueCounts, (v) => v),
      nan_value_counts: mapEntries(m?.nanValueCounts, (v) => v),
      lower_bounds: mapEntries(m?.lowerBounds, (v) => Buffer.from(v)),
      upper_bounds: mapEntries(m?.upperBounds, (v) => Buffer.from(v)),
      key_metadata: null,
      split_offsets: f.splitOffsets,
      equality_ids: f.equalityIds,
      sort_order_id: f.sortOrderId,
      ...(formatVersion >= 3
        ? {
            first_row_id: f.content === CONTENT.DATA ? (f.firstRowId ?? null) : null,
            referenced_data_file: f.referencedDataFile ?? null,
            content_offset: f.contentOffset ?? null,
            content_size_in_bytes: f.contentSizeInBytes ?? null,
          }
        : {}),
    },
  };
}

export async function encodeManifest(ctx: SpecContext, entries: ManifestEntry[], content: 'data' | 'deletes'): Promise<Buffer> {
  const parts = partitionResultTypes(ctx);
  return encodeAvroContainer(manifestEntrySchema(parts, ctx.formatVersion), entries.map((e) => toAvroEntry(e, parts, ctx.formatVersion)), {
    schema: JSON.stringify({ type: 'struct', 'schema-id': ctx.schema['schema-id'], fields: ctx.schema.fields }),
    'schema-id': String(ctx.schema['schema-id']),
    'partition-spec': JSON.stringify(ctx.spec.fields),
    'partition-spec-id': String(ctx.spec['spec-id']),
    'format-version': String(ctx.formatVersion),
    content,
  });
}

/** Summary of one manifest for the manifest list: counts and per-partition-field bounds. */
export function summarizeManifest(
  ctx: SpecContext,
  entries: ManifestEntry[],
  path: string,
  length: number,
  snapshotId: Id,
  sequenceNumber: Id,
): ManifestListEntry {
  const parts = partitionResultTypes(ctx);
  const count = (status: number) => entries.filter((e) => e.status === status);
  const rows = (es: ManifestEntry[]) => es.reduce((n, e) => n + e.dataFile.recordCount, 0);
  const seqs = entries.map((e) => (e.sequenceNumber === null ? sequenceNumber : e.sequenceNumber)).map((s) => BigInt(s));
  const minSeq = seqs.length ? seqs.reduce((a, b) => (b < a ? b : a)) : BigInt(sequenceNumber);
  const live = entries.filter((e) => e.status !== STATUS.DELETED);
  return {
    manifest_path: path,
    manifest_length: length,
    partition_spec_id: ctx.spec['spec-id'],
    content: entries.some((e) => e.dataFile.content !== CONTENT.DATA) ? 1 : 0,
    sequence_number: sequenceNumber,
    min_sequence_number: Number.isSafeInteger(Number(minSeq)) ? Number(minSeq) : minSeq,
    added_snapshot_id: snapshotId,
    added_files_count: count(STATUS.ADDED).length,
    existing_files_count: count(STATUS.EXISTING).length,
    deleted_files_count: count(STATUS.DELETED).length,
    added_rows_count: rows(count(STATUS.ADDED)),
    existing_rows_count: rows(count(STATUS.EXISTING)),
    deleted_rows_count: rows(count(STATUS.DELETED)),
    partitions: parts.map((p) => {
      const values = live.map((e) => e.dataFile.partition[p.name]);
      const present = values.filter((v) => v !== null && v !== undefined);
      const nan = present.some((v) => typeof v === 'number' && Number.isNaN(v));
      const sorted = present.filter((v) => !(typeof v === 'number' && Number.isNaN(v))).sort(comparePartitionValues);
      return {
        contains_null: present.length < values.length,
        // Java writes false for every type without NaNs (Iceberg 1.10's all_manifests reads it as required).
        contains_nan: nan,
        lower_bound: sorted.length ? Buffer.from(serializeSingleValue(p.resultType, sorted[0])) : null,
        upper_bound: sorted.length ? Buffer.from(serializeSingleValue(p.resultType, sorted[sorted.length - 1])) : null,
      };
    }),
    key_metadata: null,
  };
}

/**
 * The order of the spec's bounds: binary and strings by unsigned bytes (UTF-8 for strings, so
 * by code point; JS `<` compares UTF-16 units, which puts U+10000.. before U+E000..U+FFFF).
 * Binary values used to fall through to `a - b` (NaN): the bounds were arbitrary values and
 * engines that prune manifests by them (DuckDB) skipped manifests holding matching rows.
 */
function comparePartitionValues(a: unknown, b: unknown): number {
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b);
  if (typeof a === 'string' && typeof b === 'string') return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
  if (typeof a === 'bigint' || typeof b === 'bigint') return BigInt(a as number) < BigInt(b as number) ? -1 : BigInt(a as number) > BigInt(b as number) ? 1 : 0;
  return (a as number) - (b as number);
}

/** A manifest list; `firstRowId` (v3 tables: the snapshot's first row id) makes it a v3 list. */
export async function encodeManifestList(entries: ManifestListEntry[], snapshotId: Id, parentId: Id | null, sequenceNumber: Id, firstRowId: Id | null = null): Promise<Buffer> {
  const header = {
    'snapshot-id': String(snapshotId),
    'parent-snapshot-id': parentId === null ? 'null' : String(parentId),
    'sequence-number': String(sequenceNumber),
  };
  if (firstRowId === null) return encodeAvroContainer(MANIFEST_FILE_SCHEMA, entries, { ...header, 'format-version': '2' });
  return encodeAvroContainer(
    MANIFEST_FILE_SCHEMA_V3,
    entries.map((e) => ({ ...e, first_row_id: e.first_row_id ?? null })),
    { ...header, 'first-row-id': String(firstRowId), 'format-version': '3' },
  );
}

export async function decodeManifestList(bytes: Uint8Array): Promise<ManifestListEntry[]> {
  return (await decodeAvroContainer(bytes)).records as unknown as ManifestListEntry[];
}

/** Reads a manifest's entries back (used by compaction and overwrites). */
export async function decodeManifest(bytes: Uint8Array): Promise<{ entries: ManifestEntry[]; metadata: Record<string, string> }> {
  const c = await decodeAvroContainer(bytes);
  const fromMap = (x: unknown): Map<number, never> => new Map(((x as { key: number; value: never }[] | null) ?? []).map((kv) => [kv.key, kv.value]));
  const entries = c.records.map((r) => {
    const f = r.data_file as Record<string, unknown>;
    return {
      status: r.status as number,
      snapshotId: r.snapshot_id as Id | null,
      sequenceNumber: r.sequence_number as Id | null,
      fileSequenceNumber: r.file_sequence_number as Id | null,
      dataFile: {
        content: f.content as number,
        filePath: f.file_path as string,
        fileFormat: String(f.file_format).toUpperCase() === 'PUFFIN' ? ('PUFFIN' as const) : ('PARQUET' as const),
        partition: f.partition as Record<string, unknown>,
        recordCount: Number(f.record_count),
        fileSizeInBytes: Number(f.file_size_in_bytes),
        metrics: {
          columnSizes: fromMap(f.column_sizes),
          valueCounts: fromMap(f.value_counts),
          nullValueCounts: fromMap(f.null_value_counts),
          nanValueCounts: fromMap(f.nan_value_counts),
          lowerBounds: fromMap(f.lower_bounds),
          upperBounds: fromMap(f.upper_bounds),
        },
        splitOffsets: (f.split_offsets as bigint[] | null) ?? null,
        equalityIds: (f.equality_ids as number[] | null) ?? null,
        sortOrderId: (f.sort_order_id as number | null) ?? null,
        firstRowId: (f.first_row_id as Id | null | undefined) ?? null,
        referencedDataFile: (f.referenced_data_file as string | null | undefined) ?? null,
        contentOffset: f.content_offset === null || f.content_offset === undefined ? null : Number(f.content_offset),
        contentSizeInBytes: f.content_size_in_bytes === null || f.content_size_in_bytes === undefined ? null : Number(f.content_size_in_bytes),
      },
    };
  });
  return { entries, metadata: c.metadata };
}
