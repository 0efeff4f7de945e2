// Reads and writes table metadata JSON without losing 64-bit ids: snapshot ids written by other
// engines use all 63 bits, beyond what a JS number holds, so such integers become bigints.
import { isInteger, parse, stringify, type LosslessNumber } from 'lossless-json';
import type { IcebergField } from './field-types.ts';

function parseNumber(text: string): number | bigint {
  if (isInteger(text)) {
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : BigInt(text);
  }
  return Number(text);
}

/** Parses any JSON document, turning integers beyond 2^53 into bigints. */
export function parseJsonLossless(text: string): unknown {
  return parse(text, null, parseNumber);
}

export function parseMetadataJson(text: string): TableMetadata {
  return parseJsonLossless(text) as TableMetadata;
}

export function stringifyMetadataJson(meta: TableMetadata): string {
  return stringify(meta, null, 2) + '\n';
}

export type Id = number | bigint;

export interface SnapshotJson {
  'snapshot-id': Id;
  'parent-snapshot-id'?: Id | null;
  'sequence-number': number;
  'timestamp-ms': number;
  'manifest-list': string;
  summary: Record<string, string>;
  'schema-id'?: number;
  /** v3: row lineage of the snapshot. */
  'first-row-id'?: number;
  'added-rows'?: number;
}

/** The parts of table metadata the writer reads and changes; the rest is carried through. */
export interface TableMetadata {
  'format-version': number;
  'table-uuid': string;
  location: string;
  'last-sequence-number': number;
  'last-updated-ms': number;
  'last-column-id': number;
  'current-schema-id': number;
  schemas: { 'schema-id': number; type: 'struct'; fields: unknown[] }[];
  'default-spec-id': number;
  'partition-specs': { 'spec-id': number; fields: { 'source-id': number; 'field-id': number; name: string; transform: string }[] }[];
  'last-partition-id': number;
  'default-sort-order-id': number;
  'sort-orders': unknown[];
  properties?: Record<string, string>;
  'current-snapshot-id'?: Id | null;
  refs?: Record<string, { 'snapshot-id': Id; type: string }>;
  snapshots?: SnapshotJson[];
  'snapshot-log'?: { 'timestamp-ms': number; 'snapshot-id': Id }[];
  'metadata-log'?: { 'timestamp-ms': number; 'metadata-file': string }[];
  /** v3: higher than every row id assigned so far; the next snapshot's `first-row-id`. */
  'next-row-id'?: number;
  [key: string]: unknown;
}

export type { LosslessNumber };

/** The fields of the table's current schema (what new files are written with). */
export function currentSchemaFields(meta: Pick<TableMetadata, 'schemas' | 'current-schema-id'>): IcebergField[] {
  return (meta.schemas.find((x) => x['schema-id'] === meta['current-schema-id'])?.fields ?? []) as IcebergField[];
}
