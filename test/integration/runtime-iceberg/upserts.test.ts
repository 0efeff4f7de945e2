// The runtime's Iceberg sink fed by changelogs: a GROUP BY with EMIT CHANGES (an upsert stream
// keyed by the group key) in both write modes, PostgreSQL CDC with updates, key changes and
// deletes, and crashes between the checkpoint and the table commit with upserts pending (one
// with a compaction committed before the restart, so the pending deletes must be re-located).
// Tables are read back with pyiceberg; expected rows come from DuckDB or PostgreSQL itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { queryDuckDb } from '../../support/duckdb.ts';
import { ensureServices } from '../../support/services.ts';
import { FilesystemCatalog } from '../../../targets/runtime/lib/iceberg/writer/catalogs/filesystem-catalog.ts';
import { identFromName } from '../../../targets/runtime/lib/iceberg/writer/catalogs/catalog.ts';
import { IcebergTableWriter } from '../../../targets/runtime/lib/iceberg/writer/table-writer.ts';
import { runCompactionAction } from '../../../targets/iceberg/writer/maintenance.ts';
import { readLiveFiles } from '../../../targets/runtime/lib/iceberg/writer/live-files.ts';
import { CONTENT } from '../../../targets/runtime/lib/iceberg/writer/manifests.ts';
import type { SnapshotJson } from '../../../targets/runtime/lib/iceberg/writer/metadata-json.ts';
import { readDataFileRecords } from '../../../targets/runtime/lib/iceberg/writer/read-records.ts';
import { readParquetRows } from '../../../targets/runtime/lib/iceberg/writer/table-writer.ts';
import { cleanup, pgClient, unique } from '../postgres-cdc/harness.ts';
import { startPipeline, until } from '../runtime-cdc/harness.ts';
import { readIcebergTable } from '../../support/pyiceberg.ts';
import { readFsTable, runSpec, runSpecChild, sinkSnapshots } from './helpers.ts';

type Mode = 'merge-on-read' | 'copy-on-write';
const FS_CATALOG = "CREATE CATALOG lake WITH (type = 'filesystem', warehouse = '${WH}');";

/**
 * Datagen ids 0..rows-1 (throttled: many checkpoints and table commits), grouped by a key of
 * 23 values plus NULL (every 29th id); every commit updates groups of earlier commits.
 */
function groupsSpec(o: { pipeline: string; rows: number; perSecond: number; mode: Mode; commitInterval: string }): string {
  return `
PIPELINE ${o.pipeline} WITH (checkpoint_interval = '100 ms');
CREATE SOURCE ticks (id BIGINT NOT NULL) WITH (
  connector = 'datagen', total_rows = ${o.rows}, rows_per_second = ${o.perSecond}, fields.id.kind = 'sequence'
);
CREATE VIEW per_group WITH (state_ttl = '1 h') AS
SELECT CASE WHEN id % 29 = 0 THEN NULL ELSE CONCAT('g', CAST(id % 23 AS STRING)) END AS grp,
       COUNT(*) AS n, SUM(CAST(id AS DECIMAL(12, 2))) AS total, MAX(id) AS last_id
FROM ticks
GROUP BY CASE WHEN id % 29 = 0 THEN NULL ELSE CONCAT('g', CAST(id % 23 AS STRING)) END
EMIT CHANGES;
${FS_CATALOG}
CREATE SINK out FROM per_group WITH (
  connector = 'iceberg', catalog = 'lake', table = 'agg.per_group', write_mode = '${o.mode}',
  partition_by = 'bucket(4, grp)', commit_interval = '${o.commitInterval}'
);
`;
}

/** The final aggregate, computed by DuckDB over the same ids. */
async function expectedGroups(rows: number): Promise<string[]> {
  const r = await queryDuckDb(`
    SELECT CASE WHEN i % 29 = 0 THEN NULL ELSE 'g' || (i % 23)::VARCHAR END AS grp, COUNT(*) AS n,
           SUM(i::DECIMAL(12, 2))::VARCHAR AS total, MAX(i) AS last_id
    FROM range(${rows}) t(i) GROUP BY ALL`);
  return r.map((x) => JSON.stringify([x.grp ?? null, Number(x.n), String(x.total), Number(x.last_id)])).sort();
}

const asGroups = (rows: Record<string, unknown>[]): string[] =>
  rows.map((r) => JSON.stringify([r.grp ?? null, Number(r.n), String(r.total), Number(r.last_id)])).sort();

/** How many datagen rows the checkpoint behind a sink snapshot had read (its summary's source positions). */
const rowsRead = (summary: Record<string, string>): number => (JSON.parse(summary['pipec.source-positions']!) as { ticks: { next: number } }).ticks.next;

/**
 * The table as of each given sink snapshot (pyiceberg time travel) equals the aggregate of the
 * rows read by then: every table commit is exact, not only the last (later updates of the same
 * groups would hide a wrong intermediate commit).
 */
async function assertSnapshotsExact(wh: string, pipeline: string, picks: (snaps: SnapshotJson[]) => SnapshotJson[]): Promise<void> {
  const t = await new FilesystemCatalog('lake', wh).load(identFromName('agg.per_group'));
  const mine = (t!.metadata.snapshots ?? []).filter((s) => s.summary?.['pipec.pipeline'] === pipeline);
  for (const s of picks(mine)) {
    const summary = s.summary ?? {};
    const at = await readIcebergTable({ metadata: t!.metadataLocation }, { snapshotId: String(s['snapshot-id']) });
    assert.deepEqual(asGroups(at.rows), await expectedGroups(rowsRead(summary)), `table at checkpoint ${summary['pipec.checkpoint-seq']} (${rowsRead(summary)} rows read)`);
  }
}

/**
 * Live row count of a filesystem-catalog table read in-process (data rows minus position
 * deletes): only to know when to ask pyiceberg, which takes seconds per read, never asserted on.
 */
async function quickRows(wh: string, table: string): Promise<Record<string, unknown>[]> {
  const t = await new FilesystemCatalog('lake', wh).load(identFromName(table));
  if (!t) return [];
  const live = await readLiveFiles(t.metadata);
  const gone = new Set<string>();
  for (const { entry } of live.entries) {
    if (entry.dataFile.content !== CONTENT.POSITION_DELETES) continue;
    for (const r of await readParquetRows(entry.dataFile.filePath)) gone.add(`${String(r.file_path)}#${Number(r.pos)}`);
  }
  const fields = (t.metadata.schemas.find((s) => s['schema-id'] === t.metadata['current-schema-id'])!.fields ?? []) as never;
  const rows: Record<string, unknown>[] = [];
  for (const { entry } of live.entries) {
    if (entry.dataFile.content !== CONTENT.DATA) continue;
    (await readDataFileRecords(entry.dataFile.filePath, fields)).forEach((r, i) => {
      if (!gone.has(`${entry.dataFile.filePath}#${i}`)) rows.push(r);
    });
  }
  return rows;
}

for (const mode of ['merge-on-read', 'copy-on-write'] as const) {
  test(`GROUP BY EMIT CHANGES → Iceberg (${mode}): one row per group, equal to DuckDB's aggregate, after many commits`, { timeout: 60_000 }, async () => {
    const dir = tempDir('pipec-ice-ups-');
    const wh = path.join(dir, 'warehouse');
    const rows = 3000;
    const run = await runSpec(dir, groupsSpec({ pipeline: 'groups', rows, perSecond: 2500, mode, commitInterval: '250 ms' }), { WH: wh }, path.join(dir, 'ck'));
    assert.equal(run.exitCode, 0, run.stderr);
    const dump = await readFsTable(wh, 'agg.per_group');
    assert.deepEqual(asGroups(dump!.rows), await expectedGroups(rows));
    const snaps = sinkSnapshots(dump!, 'groups', 'out');
    assert.ok(snaps.length >= 3, `several table commits: ${snaps.length}`);
    await assertSnapshotsExact(wh, 'groups', (all) => [all[1]!]);
    // Later commits replaced rows that earlier commits wrote, in the mode's own way.
    const later = snaps.slice(1);
    if (mode === 'merge-on-read') {
      assert.ok(later.every((s) => Number(s['added-position-deletes']) > 0), 'each later commit deletes earlier rows by position');
      assert.ok(later.every((s) => Number(s['deleted-data-files']) === 0));
    } else {
      assert.ok(later.every((s) => Number(s['deleted-data-files']) > 0), 'each later commit replaces earlier data files');
      assert.ok(snaps.every((s) => Number(s['total-delete-files']) === 0), 'copy-on-write writes no delete files');
      assert.equal(Number(snaps.at(-1)!['total-records']), dump!.rows.length, 'the files hold exactly the live rows');
    }
  });
}

test('PostgreSQL CDC → Iceberg (both write modes): inserts, updates, a key change and deletes; the tables equal PostgreSQL’s', { timeout: 90_000 }, async (t) => {
  const env = await ensureServices(['postgres']);
  const url = env.PIPEC_PG_URL!;
  const [table, slot, pub] = [unique('cdc_ice'), unique('slot'), unique('pub')];
  const c = await pgClient(url);
  await c.query(`CREATE TABLE ${table} (id int PRIMARY KEY, owner text NOT NULL, balance numeric(10,2))`);
  await c.query(`INSERT INTO ${table} SELECT i, 'owner' || (i % 7), i * 1.5 FROM generate_series(1, 40) i`);
  const dir = tempDir('pipec-ice-cdc-');
  const wh = path.join(dir, 'warehouse');
  const sink = (name: string, mode: Mode) =>
    `CREATE SINK ${name} FROM accounts WITH (connector = 'iceberg', catalog = 'lake', table = 'cdc.${name}', write_mode = '${mode}', partition_by = 'bucket(2, id)', commit_interval = '300 ms');`;
  const spec = `PIPELINE cdc_ice WITH (checkpoint_interval = '200 ms');
CREATE SOURCE accounts (
  id INT NOT NULL, owner STRING NOT NULL, balance DECIMAL(10, 2), PRIMARY KEY (id) NOT ENFORCED
) WITH (connector = 'postgres-cdc', dsn = '\${PIPEC_PG_URL}', table = 'public.${table}', slot = '${slot}', publication = '${pub}', heartbeat = '1 s');
${FS_CATALOG}
${sink('mor', 'merge-on-read')}
${sink('cow', 'copy-on-write')}
`;
  const p = await startPipeline(spec, { ...env, WH: wh }, dir);
  t.after(async () => {
    await p.stop();
    await c.end();
    await cleanup(url, table, slot, pub);
  });
  const dec = (v: unknown): string | null => (v === null || v === undefined ? null : Number(v).toFixed(2));
  const fromPg = async (): Promise<string[]> =>
    (await c.query(`SELECT id, owner, balance FROM ${table}`)).rows.map((r) => JSON.stringify([Number(r.id), r.owner, dec(r.balance)])).sort();
  const rowsText = (rows: Record<string, unknown>[]): string[] => rows.map((r) => JSON.stringify([Number(r.id), r.owner, dec(r.balance)])).sort();
  const fromIceberg = async (name: string): Promise<string[]> => rowsText((await readFsTable(wh, `cdc.${name}`))?.rows ?? []);
  // Poll in-process (cheap) until both tables caught up, then compare through pyiceberg.
  let last: unknown = null;
  const caughtUp = async (): Promise<boolean> => {
    const pg = await fromPg();
    last = { pg: pg.length, mor: (await quickRows(wh, 'cdc.mor')).length, cow: (await quickRows(wh, 'cdc.cow')).length };
    // In-process reads give decimals as unscaled bigints (cents here).
    const quick = async (n: string) => rowsText((await quickRows(wh, n)).map((r) => ({ ...r, balance: r.balance === null ? null : Number(r.balance) / 100 })));
    return JSON.stringify(pg) === JSON.stringify(await quick('cdc.mor')) && JSON.stringify(pg) === JSON.stringify(await quick('cdc.cow'));
  };
  const assertSame = async (): Promise<void> => {
    await until(caughtUp, () => last);
    const pg = await fromPg();
    assert.deepEqual(await fromIceberg('mor'), pg, 'merge-on-read table (pyiceberg) = PostgreSQL');
    assert.deepEqual(await fromIceberg('cow'), pg, 'copy-on-write table (pyiceberg) = PostgreSQL');
  };
  await assertSame();

  await c.query(`UPDATE ${table} SET balance = balance + 100 WHERE id % 3 = 0`);
  await c.query(`DELETE FROM ${table} WHERE id % 5 = 0`);
  await c.query(`UPDATE ${table} SET id = id + 1000 WHERE id IN (1, 2)`); // key change: -D old key, +I new key
  await c.query(`INSERT INTO ${table} VALUES (5, 'back again', 0.5), (77, 'new', NULL)`); // a deleted key returns
  await c.query('BEGIN');
  await c.query(`UPDATE ${table} SET owner = 'twice' WHERE id = 3`);
  await c.query(`UPDATE ${table} SET owner = 'thrice', balance = NULL WHERE id = 3`);
  await c.query(`INSERT INTO ${table} VALUES (78, 'short-lived', 1)`);
  await c.query(`DELETE FROM ${table} WHERE id = 78`);
  await c.query('COMMIT');
  await assertSame();
  const final = await fromPg();
  // Independent of both implementations, by hand: 40 rows − 8 deleted (5, 10, …, 40) + 5 and 77.
  assert.equal(final.length, 34);
  assert.ok(final.includes(JSON.stringify([1001, 'owner1', '1.50'])));
  assert.ok(final.includes(JSON.stringify([3, 'thrice', null])));
  assert.ok(final.includes(JSON.stringify([6, 'owner6', '109.00'])));
  assert.equal(await p.stop(), 0, p.stderr());
});

async function crashWithUpsertsPending(mode: Mode, compactBeforeRestart: boolean): Promise<void> {
  const dir = tempDir('pipec-ice-ups-crash-');
  const wh = path.join(dir, 'warehouse');
  const ck = path.join(dir, 'ck');
  const rows = 3000;
  const sql = groupsSpec({ pipeline: 'groups_crash', rows, perSecond: 2000, mode, commitInterval: '300 ms' });
  const load = () => new FilesystemCatalog('lake', wh).load(identFromName('agg.per_group'));
  const sinkCommits = async () => ((await load())?.metadata.snapshots ?? []).filter((s) => s.summary?.['pipec.pipeline'] === 'groups_crash');
  // The third table commit dies after its checkpoint: two commits are in the table, upserts of
  // the same groups are pending in the checkpoint.
  const first = await runSpecChild(dir, sql, { WH: wh, PIPEC_TEST_ICEBERG_CRASH: 'before-table-commit@3' }, ck);
  assert.equal(first.signal, 'SIGKILL', `the crash hook fired (exit ${first.exitCode}): ${first.stderr}`);
  assert.equal((await sinkCommits()).length, 2, 'two table commits before the crash');
  if (compactBeforeRestart) {
    // Another writer rewrites every data file (applying deletes): the pending position deletes
    // point at files that are gone, so the restart must locate the keys again.
    const writer = new IcebergTableWriter(new FilesystemCatalog('lake', wh), identFromName('agg.per_group'));
    const report = await runCompactionAction(writer, { kind: 'rewrite_data_files', fileSizeBelowBytes: 1 << 30, targetBytes: null, minInputFiles: 2 });
    assert.ok((report.rewrittenFiles ?? 0) >= 2, report.detail);
  }
  // The restart commits the pending upserts first; stop it right after that commit to check it alone.
  const restart = await runSpecChild(dir, sql, { WH: wh, PIPEC_TEST_ICEBERG_CRASH: 'after-table-commit@1' }, ck);
  assert.equal(restart.signal, 'SIGKILL', `the restart committed the pending batches (exit ${restart.exitCode}): ${restart.stderr}`);
  if (compactBeforeRestart) assert.match(restart.stderr, /changed since checkpoint \d+ \(another writer committed\); \d+ keys located again/);
  assert.equal((await sinkCommits()).length, 3, 'the pending batches in one commit');
  await assertSnapshotsExact(wh, 'groups_crash', (all) => [all[2]!]);
  // And a last run to the end of the input.
  const rest = await runSpecChild(dir, sql, { WH: wh }, ck);
  assert.equal(rest.exitCode, 0, rest.stderr);
  const dump = await readFsTable(wh, 'agg.per_group');
  assert.deepEqual(asGroups(dump!.rows), await expectedGroups(rows), 'exactly one current row per group');
  const seqs = sinkSnapshots(dump!, 'groups_crash', 'out').map((s) => Number(s['pipec.checkpoint-seq']));
  assert.equal(new Set(seqs).size, seqs.length, `no checkpoint committed twice: ${seqs}`);
}

test('crash between checkpoint and table commit with upserts pending (copy-on-write): the restart commits them once, the table is exact', { timeout: 60_000 }, async () => {
  await crashWithUpsertsPending('copy-on-write', false);
});

test('crash with upserts pending, then a compaction commits before the restart (merge-on-read): the restart re-locates the keys, the table is exact', { timeout: 60_000 }, async () => {
  await crashWithUpsertsPending('merge-on-read', true);
});
