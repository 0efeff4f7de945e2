// The runtime's Iceberg sink end to end: specs compiled and run by the runtime, tables read
// back with pyiceberg (an independent Iceberg implementation), expected rows computed by DuckDB
// or by hand. Covers the filesystem and SQLite catalogs, commit_interval (several checkpoints
// per snapshot, summaries with seq and source positions), crashes between the checkpoint and
// the table commit and after the table commit (exactly once after restart), and schema errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { queryDuckDb } from '../../support/duckdb.ts';
import { readIcebergTable } from '../../support/pyiceberg.ts';
import { isoMs, readFsTable, runSpec, runSpecChild, sinkSnapshots } from './helpers.ts';

/** Datagen ticks: id i = 0, 1, 2, ... at 2024-01-01 00:00:00 + i × 100 ms, throttled so a run spans many checkpoints. */
function ticksSpec(o: { pipeline: string; catalog: string; rows: number; perSecond: number; commitInterval: string }): string {
  return `
PIPELINE ${o.pipeline} WITH (checkpoint_interval = '150 ms');
CREATE SOURCE ticks (
  id BIGINT NOT NULL,
  ts TIMESTAMP(3) NOT NULL,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (
  connector = 'datagen', total_rows = ${o.rows}, rows_per_second = ${o.perSecond},
  fields.id.kind = 'sequence', fields.ts.kind = 'sequence', fields.ts.min = '2024-01-01 00:00:00', fields.ts.step = '100 ms'
);
CREATE VIEW w AS
SELECT window_start, window_end, COUNT(*) AS n, SUM(id) AS total, MIN(id) AS first_id
FROM TUMBLE(ticks, ts, INTERVAL '10' SECOND)
GROUP BY window_start, window_end
EMIT ON WINDOW CLOSE ON LATE DROP;
${o.catalog}
CREATE SINK out FROM w WITH (connector = 'iceberg', catalog = 'lake', table = 'ticks.windows', partition_by = 'hour(window_start)', commit_interval = '${o.commitInterval}');
`;
}

/** By hand: window k holds ids 100k .. 100k+99. */
function expectedWindows(rows: number): { start: number; n: number; total: number; first: number }[] {
  return Array.from({ length: rows / 100 }, (_, k) => ({ start: Date.UTC(2024, 0, 1) + k * 10_000, n: 100, total: 100 * 100 * k + 4950, first: 100 * k }));
}

const asWindows = (rows: Record<string, unknown>[]) =>
  rows.map((r) => ({ start: isoMs(r.window_start), n: Number(r.n), total: Number(r.total), first: Number(r.first_id) })).sort((a, b) => a.start - b.start);

const FS_CATALOG = "CREATE CATALOG lake WITH (type = 'filesystem', warehouse = '${WH}');";

test('file source → TUMBLE → Iceberg (filesystem catalog): pyiceberg reads exactly what DuckDB computes from the input', { timeout: 120_000 }, async () => {
  const dir = tempDir('pipec-ice-rt-');
  const events = Array.from({ length: 2000 }, (_, i) => ({
    bidtime: new Date(Date.UTC(2024, 4, 1, 8, 0, 0) + i * 1234).toISOString().replace('T', ' ').replace('Z', ''),
    price: `${(i * 37) % 500}.${String(i % 100).padStart(2, '0')}`,
    item: i % 7 === 0 ? null : ['apple', 'pear', 'plum'][i % 3],
  }));
  writeFileSync(path.join(dir, 'bids.ndjson'), events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  const sql = `
CREATE SOURCE bids (
  bidtime TIMESTAMP(3) NOT NULL,
  price   DECIMAL(10, 2) NOT NULL,
  item    STRING,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH (connector = 'file', path = 'bids.ndjson', format = 'ndjson');
CREATE VIEW w AS
SELECT item, window_start, window_end, SUM(price) AS revenue, COUNT(*) AS bids, MAX(price) AS top
FROM TUMBLE(bids, bidtime, INTERVAL '5' MINUTE)
GROUP BY item, window_start, window_end
EMIT ON WINDOW CLOSE ON LATE DROP;
${FS_CATALOG}
CREATE SINK lake_out FROM w WITH (connector = 'iceberg', catalog = 'lake', table = 'shop.revenue', partition_by = 'day(window_start), bucket(4, item)');
`;
  const wh = path.join(dir, 'warehouse');
  const run = await runSpec(dir, sql, { WH: wh });
  assert.equal(run.exitCode, 0, run.stderr);
  const dump = await readFsTable(wh, 'shop.revenue');
  assert.ok(dump, 'the sink created the table');
  const expected = await queryDuckDb(`
    SELECT item, epoch_ms(time_bucket(INTERVAL 5 MINUTE, bidtime::TIMESTAMP)) AS ws, SUM(price::DECIMAL(38, 2))::VARCHAR AS revenue, COUNT(*) AS bids, MAX(price::DECIMAL(10, 2))::VARCHAR AS top
    FROM read_json('${path.join(dir, 'bids.ndjson')}', columns = {bidtime: 'VARCHAR', price: 'VARCHAR', item: 'VARCHAR'})
    GROUP BY ALL ORDER BY ws, item NULLS FIRST`);
  const got = dump.rows
    .map((r) => ({ item: r.item ?? null, ws: isoMs(r.window_start), revenue: String(r.revenue), bids: Number(r.bids), top: String(r.top) }))
    .sort((a, b) => a.ws - b.ws || (a.item === null ? -1 : b.item === null ? 1 : String(a.item).localeCompare(String(b.item))));
  assert.deepEqual(got, expected.map((e) => ({ item: e.item ?? null, ws: Number(e.ws), revenue: String(e.revenue), bids: Number(e.bids), top: String(e.top) })));
  assert.deepEqual((dump.partitionSpec.fields as { name: string }[]).map((f) => f.name), ['window_start_day', 'item_bucket_4']);
  // Without a checkpoint dir the whole output is published once, at the end.
  assert.equal(sinkSnapshots(dump, 'spec', 'lake_out').length, 1);
});

test('SQLite catalog and commit_interval: many checkpoints, fewer snapshots, each with seq and source positions', { timeout: 120_000 }, async () => {
  const dir = tempDir('pipec-ice-rt-');
  const db = path.join(dir, 'catalog.db');
  const wh = pathToFileURL(path.join(dir, 'warehouse')).href;
  const catalog = "CREATE CATALOG lake WITH (type = 'sql', uri = '${CATALOG_URI}', warehouse = '${WH}');";
  const sql = ticksSpec({ pipeline: 'ticks_sql', catalog, rows: 3000, perSecond: 1000, commitInterval: '1 s' });
  const ck = path.join(dir, 'ck');
  const run = await runSpec(dir, sql, { WH: wh, CATALOG_URI: `sqlite:///${db}` }, ck);
  assert.equal(run.exitCode, 0, run.stderr);
  const checkpoint = JSON.parse((await import('node:fs')).readFileSync(path.join(ck, 'checkpoint.json'), 'utf8')) as { seq: number };
  const dump = await readIcebergTable({ catalog: { uri: `sqlite:///${db}`, name: 'lake' }, table: 'ticks.windows' });
  assert.deepEqual(asWindows(dump.rows), expectedWindows(3000));
  const snaps = sinkSnapshots(dump, 'ticks_sql', 'out');
  // ~3 s of input, checkpoints every 150 ms, a table commit at most every second (plus the last).
  assert.ok(checkpoint.seq >= 10, `only ${checkpoint.seq} checkpoints`);
  assert.ok(snaps.length >= 2 && snaps.length <= 6, `${snaps.length} snapshots for ${checkpoint.seq} checkpoints`);
  const seqs = snaps.map((s) => Number(s['pipec.checkpoint-seq']));
  assert.deepEqual([...seqs].sort((a, b) => a - b), seqs, 'seq grows with every snapshot');
  assert.ok(seqs.at(-1)! <= checkpoint.seq);
  assert.ok(seqs.every((s, i) => i === 0 || s - seqs[i - 1]! >= 2), `several checkpoints per snapshot: ${seqs}`);
  for (const s of snaps) {
    const pos = JSON.parse(s['pipec.source-positions']!) as Record<string, unknown>;
    assert.deepEqual(Object.keys(pos), ['ticks']);
  }
  // The last snapshot's positions are the end of the input.
  assert.match(snaps.at(-1)!['pipec.source-positions']!, /3000/);
});

async function crashAndRestart(point: 'before-table-commit' | 'after-table-commit'): Promise<void> {
  const dir = tempDir('pipec-ice-crash-');
  const wh = path.join(dir, 'warehouse');
  const ck = path.join(dir, 'ck');
  const sql = ticksSpec({ pipeline: 'ticks_crash', catalog: FS_CATALOG, rows: 3000, perSecond: 1500, commitInterval: '500 ms' });
  const first = await runSpecChild(dir, sql, { WH: wh, PIPEC_TEST_ICEBERG_CRASH: point }, ck);
  assert.equal(first.signal, 'SIGKILL', `the crash hook fired (exit ${first.exitCode}): ${first.stderr}`);
  assert.ok(existsSync(path.join(ck, 'checkpoint.json')), 'a checkpoint was durable before the crash');
  const atCrash = await readFsTable(wh, 'ticks.windows');
  const committed = atCrash ? sinkSnapshots(atCrash, 'ticks_crash', 'out').length : 0;
  assert.equal(committed, point === 'before-table-commit' ? 0 : 1, 'the crash happened where the hook says');
  const restart = await runSpecChild(dir, sql, { WH: wh }, ck);
  assert.equal(restart.exitCode, 0, restart.stderr);
  const dump = await readFsTable(wh, 'ticks.windows');
  assert.deepEqual(asWindows(dump!.rows), expectedWindows(3000), 'every window exactly once');
  const seqs = sinkSnapshots(dump!, 'ticks_crash', 'out').map((s) => Number(s['pipec.checkpoint-seq']));
  assert.equal(new Set(seqs).size, seqs.length, `no checkpoint committed twice: ${seqs}`);
}

test('crash after the checkpoint, before the table commit: the restart commits the pending files exactly once', { timeout: 120_000 }, async () => {
  await crashAndRestart('before-table-commit');
});

test('crash after the table commit, before the next checkpoint: the restart does not commit those files again', { timeout: 120_000 }, async () => {
  await crashAndRestart('after-table-commit');
});

test('an existing table with an incompatible column is a clear error naming sink, table and column', { timeout: 120_000 }, async () => {
  const dir = tempDir('pipec-ice-rt-');
  const wh = path.join(dir, 'warehouse');
  const sql = (type: string) => `
CREATE SOURCE s (id BIGINT NOT NULL, v ${type}) WITH (connector = 'datagen', total_rows = 10, fields.id.kind = 'sequence');
${FS_CATALOG}
CREATE SINK out AS SELECT id, v FROM s WITH (connector = 'iceberg', catalog = 'lake', table = 'x.t');
`;
  assert.equal((await runSpec(dir, sql('BIGINT'), { WH: wh })).exitCode, 0);
  const bad = await runSpec(dir, sql('STRING'), { WH: wh });
  assert.notEqual(bad.exitCode, 0);
  // The warehouse came from ${WH}: the runtime prints the variable, never its value (docs/security.md).
  assert.match(bad.stderr, /Iceberg sink 'out' \(table x\.t, filesystem catalog 'lake' at \$\{WH\}\): column v has an incompatible type: the sink writes string, the table holds long/);
  assert.doesNotMatch(bad.stderr, /\n\s+at /, 'no stack trace');
});
