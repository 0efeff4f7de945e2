// Row lineage of Iceberg v3 tables (table spec "Row Lineage"). Every row has a `_row_id` and
// a `_last_updated_sequence_number`; new rows store neither and inherit them: the row id from
// its data file's `first_row_id` plus its position, which the file inherits from its manifest's
// `first_row_id`, which the manifest list assigns from the snapshot's `first-row-id` (= the
// table's `next-row-id`). The sequence number is the data file's data sequence number.
// Here: the manifest-list assignment, and rows moved to a new file (compaction) keeping theirs.
import type { IcebergField } from './field-types.ts';
import type { DataFile, ManifestListEntry } from './manifests.ts';
import type { Id, TableMetadata } from './metadata-json.ts';
import { readDataFileRecords } from './read-records.ts';

export const ROW_ID = '_row_id';
export const LAST_UPDATED_SEQ = '_last_updated_sequence_number';

/** The reserved metadata columns a data file stores when its rows keep earlier lineage. */
export const LINEAGE_FIELDS: IcebergField[] = [
  { id: 2147483540, name: ROW_ID, required: false, type: 'long' },
  { id: 2147483539, name: LAST_UPDATED_SEQ, required: false, type: 'long' },
];

/**
 * Assigns `first_row_id` to the data manifests of a new manifest list that have none, in list
 * order from `firstRowId`, each taking as many ids as rows will inherit one from it; returns
 * how many ids were handed out (the snapshot's `added-rows`). `inheriting` knows that count
 * exactly for manifests this commit wrote (files with a null `first_row_id`); for a manifest
 * carried over without one (a table upgraded from v2) the spec's upper bound is used:
 * added + existing rows. Existing assignments are kept; delete manifests get none.
 */
export function assignFirstRowIds(entries: ManifestListEntry[], firstRowId: number, inheriting: Map<string, number>): number {
  let next = firstRowId;
  for (const m of entries) {
    if (m.content !== 0) {
      m.first_row_id = null;
      continue;
    }
    if (m.first_row_id !== null && m.first_row_id !== undefined) continue;
    m.first_row_id = next;
    next += inheriting.get(m.manifest_path) ?? m.added_rows_count + m.existing_rows_count;
  }
  return next - firstRowId;
}

/**
 * Rows of one data file, in file order, with the lineage they have: a stored non-null value
 * wins, else the row id is the file's first row id + position and the sequence number is the
 * file's data sequence number (null row ids stay null: files from before a v2 → v3 upgrade).
 */
export function withLineage(rows: Record<string, unknown>[], firstRowId: Id | null | undefined, dataSequenceNumber: Id): Record<string, unknown>[] {
  const first = firstRowId === null || firstRowId === undefined ? null : BigInt(firstRowId);
  return rows.map((r, pos) => ({
    ...r,
    [ROW_ID]: r[ROW_ID] ?? (first === null ? null : first + BigInt(pos)),
    [LAST_UPDATED_SEQ]: r[LAST_UPDATED_SEQ] ?? BigInt(dataSequenceNumber),
  }));
}

/**
 * The rows of a data file that is rewritten (copy-on-write), losslessly (read-records.ts), with
 * their lineage in a v3 table: stored values, else derived from the committed file (its first
 * row id and `dataSequenceNumber`); a file not committed yet (`dataSequenceNumber` null) holds
 * new rows, whose lineage stays null so they inherit it from the file they move to.
 */
export async function readRowsToMove(meta: TableMetadata, file: DataFile, dataSequenceNumber: Id | null, fields: IcebergField[]): Promise<Record<string, unknown>[]> {
  if (meta['format-version'] < 3) return readDataFileRecords(file.filePath, fields);
  const rows = await readDataFileRecords(file.filePath, [...fields, ...LINEAGE_FIELDS]);
  return dataSequenceNumber === null ? rows : withLineage(rows, file.firstRowId, dataSequenceNumber);
}

/** True when rows carry lineage columns to be written (only rows a rewrite moved do). */
export const carriesLineage = (rows: Record<string, unknown>[]): boolean => rows.length > 0 && ROW_ID in rows[0]!;
