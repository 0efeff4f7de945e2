// The runtime's Iceberg sink fed by a changelog into a format v3 table.
// 1. A streaming run (GROUP BY … EMIT CHANGES, upserts by group key) in both write modes:
//    merge-on-read writes deletion vectors (one per data file: later commits merge into it),
//    copy-on-write rewrites files; rows equal DuckDB's aggregate; across every pair of table
//    commits a row that did not change keeps its row id and sequence number, and one that
//    copy-on-write moved to another file stores them there. Lineage is read by pyiceberg.
// 2. The sink driven checkpoint by checkpoint (copy-on-write), so that every lineage case
//    happens on every run: rows moved out of committed files (kept ids, stored), out of a file
//    the same commit window wrote (new rows: nothing stored, new ids), out of a file the window
//    itself rewrote (stored ids carried on), and by a commit re-validated after another writer
//    committed. Whether the streaming run (1) moves committed rows depends on where its
//    checkpoints fall, so (1) only checks the moves that did happen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { readdirSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { queryDuckDb } from '../../support/duckdb.ts';
import { readFsTable, runSpec } from '../runtime-iceberg/helpers.ts';
import { lineageOf, rowLineage, type LineageDump } from './v3-scenario.ts';
import { icebergPlan } from '../../fixtures/iceberg/sink-plan.ts';
import { icebergTarget } from '../../../targets/iceberg/index.ts';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import { T } from '../../../src/types/sql-type.ts';
import { parseMetadataJson } from '../../../targets/runtime/lib/iceberg/writer/metadata-json.ts';
import { FilesystemCatalog } from '../../../targets/runtime/lib/iceberg/writer/catalogs/filesystem-catalog.ts';
import { identFromName } from '../../../targets/runtime/lib/iceberg/writer/catalogs/catalog.ts';
import { IcebergTableWriter } from '../../../targets/runtime/lib/iceberg/writer/table-writer.ts';
import { IcebergSink } from '../../../targets/runtime/lib/iceberg/iceberg-sink.ts';
import type { SinkDef } from '../../../targets/runtime/lib/io/sinks.ts';
import type { ConnectorContext } from '../../../targets/runtime/lib/connectors.ts';
import type { Row } from '../../../targets/runtime/lib/ops/types.ts';
import { section } from '../../support/ir-sections.ts';

const spec = (mode: string) => `
PIPELINE groups3 WITH (checkpoint_interval = '100 ms');
CREATE SOURCE ticks (id BIGINT NOT NULL) WITH (
  connector = 'datagen', total_rows = 3000, rows_per_second = 2500, fields.id.kind = 'sequence'
);
CREATE VIEW per_group WITH (state_ttl = '1 h') AS
SELECT CAST(CASE WHEN id < 1500 THEN id % 23 ELSE (id % 11) * 2 END AS STRING) AS grp, COUNT(*) AS n, MAX(id) AS last_id
FROM ticks GROUP BY CAST(CASE WHEN id < 1500 THEN id % 23 ELSE (id % 11) * 2 END AS STRING) EMIT CHANGES;
CREATE CATALOG lake WITH (type = 'filesystem', warehouse = '\${WH}');
CREATE SINK out FROM per_group WITH (
  connector = 'iceberg', catalog = 'lake', table = 'agg.per_group', write_mode = '${mode}',
  partition_by = 'bucket(4, grp)', commit_interval = '250 ms', format_version = '3'
);
`;

/** Each snapshot's row ids start where the previous snapshot's ended; next-row-id is the end. */
function assertRangesTile(d: LineageDump): void {
  let next = 0;
  for (const s of [...d.snapshots].sort((a, b) => a.sequence_number - b.sequence_number)) {
    assert.equal(s.first_row_id, next);
    next += s.added_rows!;
  }
  assert.equal(d.next_row_id, next);
}

for (const mode of ['merge-on-read', 'copy-on-write'] as const) {
  test(`v3 table, changelog sink (${mode}): rows equal DuckDB's aggregate; vectors and row ids follow the spec`, { timeout: 120_000 }, async () => {
    const dir = tempDir('pipec-ice-v3-ups-');
    const wh = path.join(dir, 'warehouse');
    const run = await runSpec(dir, spec(mode), { WH: wh }, path.join(dir, 'ck'));
    assert.equal(run.exitCode, 0, run.stderr);
    const dump = (await readFsTable(wh, 'agg.per_group'))!;
    assert.equal(dump.formatVersion, 3);
    const expected = await queryDuckDb(`SELECT (CASE WHEN i < 1500 THEN i % 23 ELSE (i % 11) * 2 END)::VARCHAR AS grp, COUNT(*) AS n, MAX(i) AS last_id FROM range(3000) t(i) GROUP BY ALL`);
    const text = (rows: Record<string, unknown>[]) => rows.map((r) => `${String(r.grp)} ${Number(r.n)} ${Number(r.last_id)}`).sort();
    assert.deepEqual(text(dump.rows), text(expected));

    // Lineage of every table commit, rows told apart by last_id (a group's row changes exactly
    // when its last_id grows). A row two consecutive commits both hold did not change: it keeps
    // its row id and sequence number, and if copy-on-write moved it to another file, that file
    // stores them. From id 1500 on only the even groups change; whether the odd rows then share
    // a committed file with even ones (and are moved) depends on where the checkpoints fall: when
    // the checkpoint crossing id 1500 and the next one share a commit, the second rewrites the
    // first one's file, and the odd rows, new rows of that very commit, get a file of their own
    // which no later commit touches. The moves are therefore checked where they happened; the
    // test below drives every case deterministically.
    const metaDir = path.join(wh, 'agg', 'per_group', 'metadata');
    const versions = readdirSync(metaDir).filter((f) => /^v\d+\.metadata\.json$/.test(f)).sort((a, b) => Number(a.slice(1, -14)) - Number(b.slice(1, -14)));
    assert.ok(versions.length >= 4, `several table commits: ${versions.length - 1}`);
    const dumps = await Promise.all(versions.slice(1).map((v) => lineageOf(pathToFileURL(path.join(metaDir, v)).href, 'last_id')));
    const fileOf = (d: LineageDump, k: unknown) => Object.entries(d.files).find(([, f]) => f.values.includes(k))!;
    let moved = 0;
    for (let i = 0; i < dumps.length; i++) {
      const d = dumps[i]!;
      assertRangesTile(d);
      const now = rowLineage(d);
      assert.equal(new Set([...now.values()].map((v) => v.id)).size, now.size, 'row ids are unique');
      assert.ok([...now.values()].every((v) => v.id < d.next_row_id));
      if (i === 0) continue;
      const prev = dumps[i - 1]!;
      const before = rowLineage(prev);
      for (const [k, v] of now) {
        if (!before.has(k)) continue;
        assert.deepEqual(v, before.get(k), `${versions[i + 1]}: unchanged row (last_id ${String(k)}) keeps its id and sequence number`);
        const [from] = fileOf(prev, k);
        const [to, file] = fileOf(d, k);
        if (from === to) continue;
        moved++;
        const pos = file.values.indexOf(k);
        assert.deepEqual({ id: file._row_id?.[pos], seq: file._last_updated_sequence_number?.[pos] }, v, `${versions[i + 1]}: moved row (last_id ${String(k)}) stores its id and sequence number`);
      }
    }
    const last = dumps[dumps.length - 1]!;
    const kept = [...rowLineage(last).keys()].filter((k) => rowLineage(dumps[dumps.length - 2]!).has(k));
    assert.ok(kept.length > 0 && kept.length < rowLineage(last).size, 'the last commit changed some groups and left others');
    const targets = last.vectors.map((v) => v.referenced_data_file);
    assert.equal(new Set(targets).size, targets.length, 'at most one deletion vector per data file');
    if (mode === 'merge-on-read') {
      assert.ok(last.vectors.length > 0, 'deletes are deletion vectors');
      assert.equal(moved, 0, 'merge-on-read never moves rows');
    } else {
      assert.equal(last.vectors.length, 0, 'copy-on-write writes no deletes');
    }
  });
}

// ---------------------------------------------------------------- 2. the sink, checkpoint by checkpoint

const COLUMNS = [
  { name: 'k', type: T.string(false), metadataFrom: null },
  { name: 'v', type: T.bigint(false), metadataFrom: null },
];

/** A copy-on-write changelog sink (key `k`) into an unpartitioned v3 table of a filesystem catalog. */
async function cowSinkDef(warehouse: string): Promise<SinkDef> {
  const plan = icebergPlan({ columns: COLUMNS });
  section(plan.sinks[0]!, 'iceberg').formatVersion = 3;
  const files = await icebergTarget.emit(plan, { diagnostics: new DiagnosticBag(), readPrevious: () => null });
  const metadata = parseMetadataJson(String(files.find((f) => f.path.endsWith('metadata.json'))!.contents));
  return {
    id: 'sink/out', name: 'out', connector: 'iceberg', options: {},
    columns: [{ name: 'k', kind: 'string', nullable: false }, { name: 'v', kind: 'bigint', nullable: false }],
    json: () => '', cells: () => [], changelog: 'upsert', upsertKey: ['k'],
    iceberg: {
      table: 'lin.t', catalog: { name: 'lake', type: 'filesystem', options: { warehouse } }, metadata, formatVersion: 3,
      targetFileSizeBytes: 128 << 20, commitIntervalMs: 60_000, writeMode: 'copy-on-write', compression: 'snappy',
      changelog: 'upsert', upsertKey: ['k'],
    },
  };
}

/** `+U` (or `+I`) rows of the changelog: key `k`, value `v`. */
const upserts = (kv: Record<string, number>): Row[] => Object.entries(kv).map(([k, v]) => Object.assign([k, v], { kind: '+U' as const }));

test('v3 copy-on-write, checkpoint by checkpoint: moved rows keep lineage; rows of the window\'s own files are new; re-validation keeps it', { timeout: 120_000 }, async () => {
  const dir = tempDir('pipec-ice-v3-cow-lineage-');
  const warehouse = path.join(dir, 'warehouse');
  const warnings: string[] = [];
  const ctx: ConnectorContext = {
    baseDir: dir, env: {}, stdout: () => undefined, pipeline: 'lineage', member: null, sourcePositions: () => ({}),
    warn: (m) => warnings.push(m), requestCheckpoint: () => undefined, checkpointDir: path.join(dir, 'ck'),
  };
  // commit_interval is a minute; a fake clock lets it pass exactly before the checkpoints that
  // are to commit, so several checkpoints share one table commit (one window) when wanted.
  const realNow = Date.now;
  let skew = 0;
  Date.now = () => realNow() + skew;
  const sink = new IcebergSink(await cowSinkDef(warehouse), ctx);
  const catalog = new FilesystemCatalog('lake', warehouse);
  try {
    sink.open(null);
    /** One checkpoint as the runner takes it; `publish`: the commit interval has passed. */
    const checkpoint = async (rows: Row[], publish: boolean): Promise<void> => {
      for (const r of rows) sink.write(r);
      await sink.commit();
      if (publish) skew += 61_000;
      await sink.afterCheckpoint();
    };
    const location = async () => (await catalog.load(identFromName('lin.t')))!.metadataLocation;
    const read = async () => {
      const d = await lineageOf(await location(), 'k');
      assert.equal(d.format_version, 3);
      assertRangesTile(d);
      const l = rowLineage(d);
      assert.equal(new Set([...l.values()].map((x) => x.id)).size, l.size, 'row ids are unique');
      /** What the data file holding row `k` stores for it (null: nothing, the row inherits). */
      const stored = (k: string) => {
        const f = Object.values(d.files).find((x) => x.values.includes(k))!;
        const i = f.values.indexOf(k);
        return { id: f._row_id?.[i] ?? null, seq: f._last_updated_sequence_number?.[i] ?? null };
      };
      return { d, l, stored, seq: Math.max(...d.snapshots.map((s) => s.sequence_number)) };
    };
    const lin = (l: Map<unknown, { id: number; seq: number }>, k: string) => l.get(k)!;

    // Commit 1 (sequence number 1): a, b, c, d in one new file: ids 0..3 in write order.
    await checkpoint(upserts({ a: 1, b: 1, c: 1, d: 1 }), true);
    let s = await read();
    assert.deepEqual(s.d.scan, ['a', 'b', 'c', 'd']);
    assert.deepEqual(['a', 'b', 'c', 'd'].map((k) => lin(s.l, k)), [0, 1, 2, 3].map((id) => ({ id, seq: 1 })));
    assert.deepEqual(['a', 'b', 'c', 'd'].map(s.stored), Array(4).fill({ id: null, seq: null }), 'new rows store nothing');

    // Commit 2 = two checkpoints in one window.
    //  ckpt A: b changes → the committed file is rewritten: a, c, d move there and store 0, 2, 3
    //          (sequence number 1); b and the new key x go to a new file.
    //  ckpt B: c and b change → the window's rewrite is rewritten again (a, d carry their stored
    //          ids on); the window's new file is rewritten: x moves, but x was never committed,
    //          so it is a new row of this commit (nothing stored, an id of this commit).
    await checkpoint(upserts({ b: 2, x: 1 }), false);
    await checkpoint(upserts({ c: 3, b: 3 }), true);
    s = await read();
    assert.equal(s.seq, 2);
    assert.deepEqual(s.d.scan, ['a', 'b', 'c', 'd', 'x']);
    assert.deepEqual(lin(s.l, 'a'), { id: 0, seq: 1 });
    assert.deepEqual(lin(s.l, 'd'), { id: 3, seq: 1 });
    assert.deepEqual(s.stored('a'), { id: 0, seq: 1 });
    assert.deepEqual(s.stored('d'), { id: 3, seq: 1 });
    // Added: x (1 row), b and c (2), the rewrite of a and d (2 ids formally): 4 + 5.
    assert.equal(s.d.next_row_id, 9);
    for (const k of ['b', 'c', 'x']) {
      assert.equal(lin(s.l, k).seq, 2, `${k} was written by commit 2`);
      assert.ok(lin(s.l, k).id >= 4 && lin(s.l, k).id < 9, `${k} has an id of commit 2`);
      assert.deepEqual(s.stored(k), { id: null, seq: null }, `${k} is a new row of commit 2: nothing stored`);
    }
    const after2 = new Map([...s.l].map(([k, v]) => [k, { ...v }]));

    // Commit 3: b changes, y is new; c shares b's committed file, so c moves and stores its
    // commit-2 id. x (alone in its file) does not move and keeps its inherited id.
    await checkpoint(upserts({ b: 4, y: 1 }), true);
    s = await read();
    assert.equal(s.seq, 3);
    assert.deepEqual(lin(s.l, 'c'), after2.get('c'));
    assert.deepEqual(s.stored('c'), after2.get('c'), 'c, moved out of a committed file, stores its id and sequence number');
    for (const k of ['a', 'd', 'x']) assert.deepEqual(lin(s.l, k), after2.get(k));
    assert.deepEqual(s.stored('x'), { id: null, seq: null });
    // Added: b and y (2 rows), the rewrite of c (1): 9 + 3.
    assert.equal(s.d.next_row_id, 12);
    for (const k of ['b', 'y']) {
      assert.equal(lin(s.l, k).seq, 3);
      assert.ok(lin(s.l, k).id >= 9 && lin(s.l, k).id < 12);
      assert.deepEqual(s.stored(k), { id: null, seq: null });
    }
    const after3 = new Map([...s.l].map(([k, v]) => [k, { ...v }]));

    // Commit 4, re-validated: a and b change (a's file holds d, which stores its lineage; b's
    // holds y, which inherits it). Before the table commit another writer appends z (sequence
    // number 4, id 12), so the sink locates a and b again in that table state and rewrites
    // both files there: d and y keep their ids and sequence numbers, now stored.
    await checkpoint(upserts({ a: 5, b: 5 }), false);
    const other = new IcebergTableWriter(catalog, identFromName('lin.t'));
    await other.append([{ k: 'z', v: 1n }]);
    skew += 61_000;
    await checkpoint([], true);
    assert.ok(warnings.some((w) => w.includes('located again')), warnings.join('\n'));
    s = await read();
    assert.equal(s.seq, 5);
    assert.deepEqual(s.d.scan, ['a', 'b', 'c', 'd', 'x', 'y', 'z']);
    for (const k of ['d', 'y']) {
      assert.deepEqual(lin(s.l, k), after3.get(k));
      assert.deepEqual(s.stored(k), after3.get(k), `${k}, moved by the re-validated commit, stores its id and sequence number`);
    }
    for (const k of ['c', 'x']) assert.deepEqual(lin(s.l, k), after3.get(k));
    assert.deepEqual(lin(s.l, 'z'), { id: 12, seq: 4 });
    for (const k of ['a', 'b']) {
      assert.equal(lin(s.l, k).seq, 5);
      assert.ok(lin(s.l, k).id >= 13 && lin(s.l, k).id < s.d.next_row_id);
      assert.deepEqual(s.stored(k), { id: null, seq: null });
    }
    const rows = (await readFsTable(warehouse, 'lin.t'))!.rows.map((r) => `${String(r.k)}=${Number(r.v)}`).sort();
    assert.deepEqual(rows, ['a=5', 'b=5', 'c=3', 'd=1', 'x=1', 'y=1', 'z=1']);
  } finally {
    Date.now = realNow;
    await sink.close().catch(() => undefined);
  }
});
