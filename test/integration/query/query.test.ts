// `pipec query` as a user runs it: `pipec run` writes an Iceberg upsert table (deletes applied on
// read: Parquet position deletes in v2, deletion vectors in v3) and Parquet / NDJSON file sinks,
// then `pipec query` reads them by sink name. Expected rows come from an independent computation
// (DuckDB over range()) and, for Iceberg, from pyiceberg reading the same table, also at an older
// snapshot (`--snapshot`). Spec paths are given absolute and relative.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { queryDuckDb } from '../../support/duckdb.ts';
import { readIcebergTable } from '../../support/pyiceberg.ts';
import { FilesystemCatalog } from '../../../targets/runtime/lib/iceberg/writer/catalogs/filesystem-catalog.ts';
import { identFromName } from '../../../targets/runtime/lib/iceberg/writer/catalogs/catalog.ts';
import { pipec } from '../../cli/run-cli.ts';

const ROWS = 4000;

/** Ids 0..ROWS-1 grouped by 23 keys plus NULL (every 29th id), upserted into Iceberg as they change. */
function upsertSpec(pipeline: string, version: 2 | 3): string {
  return `
PIPELINE ${pipeline} WITH (checkpoint_interval = '100 ms');
CREATE SOURCE ticks (id BIGINT NOT NULL) WITH (
  connector = 'datagen', total_rows = ${ROWS}, rows_per_second = 4000, fields.id.kind = 'sequence'
);
CREATE VIEW per_group WITH (state_ttl = '1 h') AS
SELECT CASE WHEN id % 29 = 0 THEN NULL ELSE CONCAT('g', CAST(id % 23 AS STRING)) END AS grp,
       COUNT(*) AS n, SUM(CAST(id AS DECIMAL(12, 2))) AS total, MAX(id) AS last_id
FROM ticks
GROUP BY CASE WHEN id % 29 = 0 THEN NULL ELSE CONCAT('g', CAST(id % 23 AS STRING)) END
EMIT CHANGES;
CREATE CATALOG lake WITH (type = 'filesystem', warehouse = 'warehouse');
CREATE SINK groups_lake FROM per_group WITH (
  connector = 'iceberg', catalog = 'lake', table = 'agg.per_group', write_mode = 'merge-on-read',
  format_version = '${version}', partition_by = 'bucket(4, grp)', commit_interval = '200 ms'
);
CREATE SINK raw_parquet FROM ticks WITH (connector = 'file', path = 'out/raw', format = 'parquet');
CREATE SINK raw_json FROM ticks WITH (connector = 'file', path = 'out/raw.ndjson', format = 'ndjson');
CREATE SINK raw_console FROM ticks WITH (connector = 'stdout');
`;
}

const GROUPS_SQL = `SELECT CASE WHEN i % 29 = 0 THEN NULL ELSE 'g' || (i % 23)::VARCHAR END AS grp, COUNT(*) AS n,
  SUM(i::DECIMAL(12, 2))::VARCHAR AS total, MAX(i) AS last_id FROM range(__N__) t(i) GROUP BY ALL`;

const key = (r: Record<string, unknown>): string => JSON.stringify([r.grp ?? null, Number(r.n), String(r.total), Number(r.last_id)]);

function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

for (const version of [2, 3] as const) {
  test(`pipec query reads an Iceberg v${version} upsert table with its deletes applied, now and at an older snapshot`, async () => {
    const dir = tempDir('pipec-query-');
    writeFileSync(path.join(dir, 'groups.pipe.sql'), upsertSpec(`groups_v${version}`, version));
    // With a checkpoint dir the sink commits at checkpoints: many snapshots, each updating earlier groups.
    const run = pipec(['run', 'groups.pipe.sql', '--checkpoint-dir', 'ck'], { cwd: dir });
    assert.equal(run.status, 0, `pipec run failed:\n${run.stderr}`);

    const q = pipec(['query', 'SELECT grp, n, total, last_id FROM groups_lake', path.join(dir, 'groups.pipe.sql'), '--format', 'json'], { cwd: '/' });
    assert.equal(q.status, 0, `pipec query failed:\n${q.stderr}`);
    const expected = (await queryDuckDb(GROUPS_SQL.replace('__N__', String(ROWS)), { values: 'json' })).map(key).sort();
    assert.deepEqual(jsonLines(q.stdout).map(key).sort(), expected, 'pipec query = the aggregate over every id');

    // The table really has deletes to apply, and pyiceberg reads the same rows.
    const table = await new FilesystemCatalog('lake', path.join(dir, 'warehouse')).load(identFromName('agg.per_group'));
    assert.ok(table, 'the table exists');
    const summary = table.metadata.snapshots!.at(-1)!.summary ?? {};
    assert.ok(Number(summary['total-position-deletes'] ?? 0) > 0, `the table has position deletes (summary: ${JSON.stringify(summary)})`);
    const py = await readIcebergTable({ metadata: table.metadataLocation });
    assert.deepEqual(py.rows.map(key).sort(), expected, 'pyiceberg reads the same rows');

    // An older snapshot: the rows pyiceberg reads at it, and fewer ids counted than in the end.
    const older = table.metadata.snapshots!.filter((s) => s.summary?.['pipec.sink'] === 'groups_lake').at(-3)!;
    const id = String(older['snapshot-id']);
    const at = pipec(['query', 'SELECT grp, n, total, last_id FROM groups_lake', 'groups.pipe.sql', '--snapshot', id, '--format', 'json'], { cwd: dir });
    assert.equal(at.status, 0, `pipec query --snapshot failed:\n${at.stderr}`);
    const pyAt = await readIcebergTable({ metadata: table.metadataLocation }, { snapshotId: id });
    assert.deepEqual(jsonLines(at.stdout).map(key).sort(), pyAt.rows.map(key).sort(), 'pipec query --snapshot = pyiceberg at that snapshot');
    const counted = (rows: Record<string, unknown>[]) => rows.reduce((s, r) => s + Number(r.n), 0);
    assert.ok(counted(jsonLines(at.stdout)) < ROWS, `the older snapshot counts fewer than ${ROWS} ids`);

    const bad = pipec(['query', 'SELECT 1 FROM groups_lake', 'groups.pipe.sql', '--snapshot', '12345'], { cwd: dir });
    assert.equal(bad.status, 1, 'an unknown snapshot fails');
    assert.match(bad.stderr, /--snapshot 12345: no Iceberg table of these specs has that snapshot \(groups_lake: \d+/);
  });
}

test('pipec query reads Parquet and NDJSON file sinks, as CSV and as a text table, and says why a name is not a table', async () => {
  const dir = tempDir('pipec-query-files-');
  mkdirSync(path.join(dir, 'specs'));
  writeFileSync(path.join(dir, 'specs', 'groups.pipe.sql'), upsertSpec('files', 2));
  assert.equal(pipec(['run', 'specs/groups.pipe.sql'], { cwd: dir }).status, 0, 'pipec run');

  // Default paths: the project's specs/ folder. The two file sinks hold every id once.
  const csv = pipec(['query', 'SELECT p.id, j.id AS jid FROM raw_parquet p FULL JOIN raw_json j USING (id) ORDER BY p.id', '--format', 'csv'], { cwd: dir });
  assert.equal(csv.status, 0, csv.stderr);
  const lines = csv.stdout.trimEnd().split('\n');
  assert.equal(lines[0], 'id,jid', 'CSV header');
  assert.equal(lines.length, ROWS + 1, 'one CSV line per id');
  assert.deepEqual(lines.slice(1, 4), ['0,0', '1,1', '2,2'], 'ids from both sinks joined');
  const direct = await queryDuckDb(`SELECT count(*) AS c, sum(id) AS s FROM read_parquet('${path.join(dir, 'specs', 'out', 'raw')}/part-*.parquet')`);
  assert.deepEqual(direct, [{ c: ROWS, s: (ROWS * (ROWS - 1)) / 2 }], 'DuckDB reading the part files directly agrees');

  const table = pipec(['query', 'SELECT count(*) AS ids, max(id) AS top FROM files.raw_parquet', 'specs'], { cwd: dir });
  assert.equal(table.status, 0, table.stderr);
  assert.equal(table.stdout, ` ids |  top\n-----+-----\n${ROWS} | ${ROWS - 1}\n(1 row)\n`, 'a text table, numbers right-aligned');

  const stdoutSink = pipec(['query', 'SELECT * FROM raw_console'], { cwd: dir });
  assert.equal(stdoutSink.status, 1);
  assert.match(stdoutSink.stderr, /sink raw_console of pipeline files cannot be queried: it is a stdout sink/);
  const unknown = pipec(['query', 'SELECT * FROM per_group'], { cwd: dir });
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /per_group does not exist.*the tables here are the specs' file and Iceberg sinks: groups_lake, raw_parquet, raw_json/);
  const syntax = pipec(['query', 'SELEC 1'], { cwd: dir });
  assert.equal(syntax.status, 1);
  assert.match(syntax.stderr, /^pipec query: the query failed: Parser Error/);
});

test('pipec query says which sink has no output yet', () => {
  const dir = tempDir('pipec-query-empty-');
  writeFileSync(path.join(dir, 'groups.pipe.sql'), upsertSpec('empty', 2));
  const r = pipec(['query', 'SELECT count(*) FROM raw_json', 'groups.pipe.sql'], { cwd: dir });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /sink raw_json of pipeline empty has no output yet at .*raw\.ndjson \(run the pipeline first\)/);
  const ice = pipec(['query', 'SELECT count(*) FROM groups_lake', 'groups.pipe.sql'], { cwd: dir });
  assert.equal(ice.status, 1);
  assert.match(ice.stderr, /table lake\.agg\.per_group does not exist yet/);
});

test('pipec query finds a file sink where pipec run writes it: a ${VAR} path from the environment, a relative path', () => {
  const dir = tempDir('pipec-query-paths-');
  const out = tempDir('pipec-query-out-');
  writeFileSync(
    path.join(dir, 'paths.pipe.sql'),
    `PIPELINE paths;
CREATE SOURCE ids (id BIGINT NOT NULL) WITH (connector = 'datagen', total_rows = 10, fields.id.kind = 'sequence');
CREATE SINK templated FROM ids WITH (connector = 'file', path = '\${OUT_DIR}/ids.ndjson');
CREATE SINK plain FROM ids WITH (connector = 'file', path = 'out/plain.ndjson');
`,
  );
  const env = { OUT_DIR: out };
  const before = pipec(['query', 'SELECT count(*) FROM templated', 'paths.pipe.sql'], { cwd: dir, env });
  assert.equal(before.status, 1);
  assert.ok(before.stderr.includes(`has no output yet at ${path.join(out, 'ids.ndjson')}`), before.stderr);
  const plain = pipec(['query', 'SELECT count(*) FROM plain', 'paths.pipe.sql'], { cwd: dir, env });
  assert.ok(plain.stderr.includes(`has no output yet at ${path.join(dir, 'out', 'plain.ndjson')}`), plain.stderr);
  assert.equal(pipec(['run', 'paths.pipe.sql'], { cwd: dir, env }).status, 0, 'pipec run');
  const after = pipec(['query', 'SELECT count(*) AS n, sum(t.id) AS s FROM templated t JOIN plain p USING (id)', 'paths.pipe.sql', '--format', 'csv'], { cwd: dir, env });
  assert.equal(after.status, 0, after.stderr);
  assert.equal(after.stdout, 'n,s\n10,45\n', 'both sinks hold ids 0..9 (sum 45)');
});
