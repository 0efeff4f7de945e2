// One sequence of format v3 commits (append, append, row deletes, more deletes of the same
// files, partition overwrite, compaction) run against any catalog, checked after every step
// through pyiceberg's reading of the table (iceberg_probe.py "lineage"). The expected
// first-row-id / added-rows / next-row-id values and the rows' ids are worked out by hand in
// the comments; the row ids are derived here from what pyiceberg read, by the spec's rules.
import assert from 'node:assert/strict';
import { icebergTarget } from '../../../targets/iceberg/index.ts';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import { IcebergTableWriter } from '../../../targets/runtime/lib/iceberg/writer/table-writer.ts';
import { runCompactionAction } from '../../../targets/iceberg/writer/maintenance.ts';
import { parseMetadataJson, type TableMetadata } from '../../../targets/runtime/lib/iceberg/writer/metadata-json.ts';
import { icebergPlan } from '../../fixtures/iceberg/sink-plan.ts';
import { probe } from './probe.ts';
import { section } from '../../support/ir-sections.ts';

interface ProbeEntry {
  status: number;
  sequence_number: number | null;
  content: number;
  file_path: string;
  file_format: string;
  record_count: number;
  first_row_id: number | null;
  referenced_data_file: string | null;
}

export interface LineageDump {
  format_version: number;
  next_row_id: number;
  snapshots: { snapshot_id: number; sequence_number: number; first_row_id: number | null; added_rows: number | null; operation: string }[];
  manifests: { path: string; content: number; first_row_id: number | null; sequence_number: number; entries: ProbeEntry[] }[];
  /** Per live data file, by position: the probed column's values and the stored lineage columns. */
  files: Record<string, { values: unknown[]; _row_id: (number | null)[] | null; _last_updated_sequence_number: (number | null)[] | null }>;
  vectors: { file: string; referenced_data_file: string; positions: number[] }[];
  /** The probed column of a pyiceberg scan, sorted. */
  scan: unknown[];
}

/** pyiceberg's view of a v3 table's lineage; rows are told apart by `column` (unique per row). */
export const lineageOf = (metadata: string, column = 'orders'): Promise<LineageDump> => probe<LineageDump>({ op: 'lineage', metadata, column });

/** Generated v3 table metadata, partitioned by day(window_start). */
export async function v3Metadata(): Promise<TableMetadata> {
  const plan = icebergPlan({ partitionBy: [{ column: 'window_start', transform: 'day', param: null }] });
  section(plan.sinks[0]!, 'iceberg').formatVersion = 3;
  const files = await icebergTarget.emit(plan, { diagnostics: new DiagnosticBag(), readPrevious: () => null });
  return parseMetadataJson(String(files.find((f) => f.path.endsWith('metadata.json'))!.contents));
}

/** Even `i` lands in day A (2026-01-01), odd `i` in day B (2026-01-02). */
export const v3Row = (i: number) => ({ customer_id: i % 6, window_start: Date.UTC(2026, 0, 1 + (i % 2)), revenue: `${i}.25`, orders: i, region: 'eu' });
const rows = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => v3Row(from + k));

/**
 * Every live row's `_row_id` and `_last_updated_sequence_number`, keyed by `orders`, derived
 * by the spec: a stored value wins; else the file's first_row_id (its own, or inherited: the
 * manifest's plus the record counts of the data files before it in the manifest with a null
 * one) plus the position, and the file's data sequence number. Rows a vector deletes are out.
 * Keyed by the probed column's value.
 */
export function rowLineage(d: LineageDump): Map<unknown, { id: number; seq: number }> {
  const deleted = new Map<string, Set<number>>();
  for (const v of d.vectors) deleted.set(v.referenced_data_file, new Set([...(deleted.get(v.referenced_data_file) ?? []), ...v.positions]));
  const out = new Map<unknown, { id: number; seq: number }>();
  for (const m of d.manifests) {
    if (m.content !== 0) continue;
    assert.notEqual(m.first_row_id, null, `data manifest ${m.path} has a first_row_id`);
    let next = m.first_row_id!;
    for (const e of m.entries) {
      if (e.content !== 0) continue;
      let first = e.first_row_id;
      if (first === null) {
        first = next;
        next += e.record_count;
      }
      if (e.status === 2) continue;
      const f = d.files[e.file_path]!;
      const dataSeq = e.sequence_number ?? m.sequence_number;
      f.values.forEach((value, pos) => {
        if (deleted.get(e.file_path)?.has(pos)) return;
        assert.ok(!out.has(value), `row ${String(value)} is live once`);
        out.set(value, { id: f._row_id?.[pos] ?? first! + pos, seq: f._last_updated_sequence_number?.[pos] ?? dataSeq });
      });
    }
  }
  return out;
}

const ids = (l: Map<unknown, { id: number }>, orders: number[]) => orders.map((o) => l.get(o)!.id);
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => from + k);

/** The snapshot just committed: its row-id range, the table's next-row-id, the operation. */
function assertSnapshot(d: LineageDump, expected: { operation: string; firstRowId: number; addedRows: number; nextRowId: number }): void {
  const s = d.snapshots[d.snapshots.length - 1]!;
  assert.deepEqual(
    { operation: s.operation, firstRowId: s.first_row_id, addedRows: s.added_rows, nextRowId: d.next_row_id },
    expected,
  );
  for (const m of d.manifests) if (m.content === 1) assert.equal(m.first_row_id, null, 'delete manifests have no first_row_id');
}

/** Live deletion vectors: at most one per data file, each for a live data file. */
function liveVectors(d: LineageDump): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const v of d.vectors) {
    assert.ok(!out.has(v.referenced_data_file), `one deletion vector per data file (${v.referenced_data_file})`);
    assert.ok(d.files[v.referenced_data_file], 'a vector deletes rows of a live data file');
    out.set(v.referenced_data_file, v.positions);
  }
  for (const m of d.manifests) for (const e of m.entries) if (e.content === 1 && e.status !== 2) assert.equal(e.file_format, 'PUFFIN', 'v3 deletes are deletion vectors');
  return out;
}

/** Which `orders` values the live vectors delete (read through the data files' positions). */
function deletedOrders(d: LineageDump): number[] {
  return sorted([...liveVectors(d)].flatMap(([file, positions]) => positions.map((p) => d.files[file]!.values[p] as number)));
}

/** Runs the scenario on a created, empty v3 table; `metadataOf` = where pyiceberg reads it. */
export async function runV3Scenario(writer: IcebergTableWriter): Promise<void> {
  const read = async () => lineageOf((await writer.load()).metadataLocation);

  // 1. Append 0..9: ids 0..9 (the table starts at next-row-id 0), sequence number 1.
  await writer.append(rows(0, 10));
  let d = await read();
  assert.equal(d.format_version, 3);
  assertSnapshot(d, { operation: 'append', firstRowId: 0, addedRows: 10, nextRowId: 10 });
  let l = rowLineage(d);
  assert.deepEqual(sorted(ids(l, range(0, 10))), range(0, 10));
  assert.ok(range(0, 10).every((o) => l.get(o)!.seq === 1));
  const idOf = new Map(range(0, 10).map((o) => [o, l.get(o)!.id]));

  // 2. Append 10..19: ids 10..19; the first rows keep theirs.
  await writer.append(rows(10, 20));
  d = await read();
  assertSnapshot(d, { operation: 'append', firstRowId: 10, addedRows: 10, nextRowId: 20 });
  l = rowLineage(d);
  assert.deepEqual(sorted(ids(l, range(10, 20))), range(10, 20));
  for (const o of range(10, 20)) idOf.set(o, l.get(o)!.id);
  for (const o of range(0, 20)) assert.equal(l.get(o)!.id, idOf.get(o));

  // 3. Delete multiples of 5 (0, 5, 10, 15): one vector in each of the 4 data files, no row ids used.
  await writer.replaceRows((r) => Number(r.orders) % 5 === 0, []);
  d = await read();
  assertSnapshot(d, { operation: 'delete', firstRowId: 20, addedRows: 0, nextRowId: 20 });
  assert.equal(liveVectors(d).size, 4);
  assert.deepEqual(deletedOrders(d), [0, 5, 10, 15]);
  assert.deepEqual(d.scan, range(0, 20).filter((o) => o % 5 !== 0));

  // 4. Delete multiples of 3 and add row 100 (id 20): new deletes of a file with a vector merge
  //    into one vector (0+6, 3+5+9, 10+12+18; the file of 11..19 odd keeps {15}).
  await writer.replaceRows((r) => Number(r.orders) % 3 === 0, [v3Row(100)]);
  d = await read();
  assertSnapshot(d, { operation: 'overwrite', firstRowId: 20, addedRows: 1, nextRowId: 21 });
  assert.equal(liveVectors(d).size, 4);
  assert.deepEqual(deletedOrders(d), [0, 3, 5, 6, 9, 10, 12, 15, 18]);
  l = rowLineage(d);
  assert.equal(l.get(100)!.id, 20);
  assert.equal(l.get(100)!.seq, 4);
  for (const o of l.keys() as Iterable<number>) if (o < 20) assert.equal(l.get(o)!.id, idOf.get(o), `row ${o} keeps its id`);

  // 5. Overwrite day B with 201, 203 (ids 21, 22): day B's files go, and their vectors with them.
  await writer.overwritePartitions([v3Row(201), v3Row(203)]);
  d = await read();
  assertSnapshot(d, { operation: 'overwrite', firstRowId: 21, addedRows: 2, nextRowId: 23 });
  assert.deepEqual(d.scan, [2, 4, 8, 14, 16, 100, 201, 203]);
  assert.equal(liveVectors(d).size, 2, 'only the vectors of day A files remain');
  l = rowLineage(d);
  assert.deepEqual(sorted(ids(l, [201, 203])), [21, 22]);

  // 6. Compaction: day A's two appended files (2 of 5 rows deleted each) become one file of 2, 4,
  //    8, 14, 16. The new file takes 5 ids formally (23..27), but its rows store the ids and
  //    sequence numbers they had (1 for 2, 4, 8; 2 for 14, 16).
  const before = new Map([...l].map(([o, v]) => [o, { ...v }]));
  const report = await runCompactionAction(writer, { kind: 'rewrite_delete_files', deleteRatioAbove: 0.1 });
  assert.equal(report.rewrittenFiles, 2);
  d = await read();
  assertSnapshot(d, { operation: 'replace', firstRowId: 23, addedRows: 5, nextRowId: 28 });
  assert.equal(liveVectors(d).size, 0, 'the rewritten files took their vectors with them');
  assert.deepEqual(d.scan, [2, 4, 8, 14, 16, 100, 201, 203]);
  l = rowLineage(d);
  assert.deepEqual(l, before);
  assert.deepEqual([2, 4, 8, 14, 16].map((o) => l.get(o)!.seq), [1, 1, 1, 2, 2]);
  assert.deepEqual([2, 4, 8, 14, 16].map((o) => l.get(o)!.id), [2, 4, 8, 14, 16].map((o) => idOf.get(o)));
}
