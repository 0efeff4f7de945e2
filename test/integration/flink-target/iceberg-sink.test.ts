// The Flink target's Iceberg sink on real Flink 2.3: the generated script creates the table in a
// filesystem (Hadoop) catalog through Iceberg's Flink runtime (iceberg-flink-runtime-2.0, Hadoop's
// shaded client on the class path) and writes it; pyiceberg reads the table Flink wrote and the one
// `pipec run` wrote from the same spec and input, and the rows must be equal (and checked against a
// computation of the windows from the input, so an empty or wrong pair cannot pass).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { flinkJars, runFlink } from '../../support/flink.ts';
import { readIcebergTable } from '../../support/pyiceberg.ts';
import { pipec } from '../../cli/run-cli.ts';
import { prng } from '../../support/prng.ts';
import { canon, splitScript } from './script.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const ts = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

interface Bid { auction: number; price: number; t: number }

/** 300 bids over 60 s, up to 1 s out of order (inside the 2 s watermark delay: none is late). */
function bids(): Bid[] {
  const r = prng(11);
  return Array.from({ length: 300 }, (_, i) => ({ auction: 1 + Math.floor(r() * 3), price: 1 + Math.floor(r() * 500), t: T0 + i * 200 + Math.floor(r() * 1000) }));
}

const SPEC = `PIPELINE flink_lake WITH (checkpoint_interval = '2 s');
CREATE SOURCE bids (
  auction BIGINT NOT NULL, price BIGINT NOT NULL, bid_ts TIMESTAMP(3) NOT NULL,
  WATERMARK FOR bid_ts AS bid_ts - INTERVAL '2' SECOND
) WITH (connector = 'file', path = 'bids.ndjson', format = 'ndjson');
CREATE CATALOG lake WITH (type = 'filesystem', warehouse = 'wh');
CREATE VIEW per_auction AS
SELECT auction, window_start, window_end, COUNT(*) AS bids, SUM(price) AS total
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bid_ts), INTERVAL '10' SECOND))
GROUP BY auction, window_start, window_end;
CREATE SINK lake_windows FROM per_auction WITH (connector = 'iceberg', catalog = 'lake', table = 'db.windows');
`;

/** The current metadata file of a filesystem-catalog table (the highest version). */
function metadataOf(tableDir: string): string {
  const dir = path.join(tableDir, 'metadata');
  const hint = path.join(dir, 'version-hint.text');
  if (existsSync(hint)) return path.join(dir, `v${readFileSync(hint, 'utf8').trim()}.metadata.json`);
  const files = readdirSync(dir).filter((f) => f.endsWith('.metadata.json'));
  const version = (f: string): number => Number(/^v?(\d+)/.exec(f)?.[1] ?? -1);
  const latest = files.sort((a, b) => version(a) - version(b)).pop();
  assert.ok(latest, `no metadata in ${dir}`);
  return path.join(dir, latest);
}

test("the Flink script's Iceberg sink writes the rows pipec run writes, read back by pyiceberg", { timeout: 900_000 }, async () => {
  const dir = tempDir('pipec-flink-iceberg-');
  const input = bids();
  writeFileSync(path.join(dir, 'bids.ndjson'), input.map((b) => JSON.stringify({ auction: b.auction, price: b.price, bid_ts: ts(b.t) })).join('\n') + '\n');
  writeFileSync(path.join(dir, 'lake.pipe.sql'), SPEC);

  // The windows computed from the input, independently of both engines.
  const expected = new Map<string, { auction: number; window_start: string; window_end: string; bids: number; total: number }>();
  for (const b of input) {
    const start = Math.floor((b.t - T0) / 10_000) * 10_000 + T0;
    const k = `${b.auction}/${start}`;
    const w = expected.get(k) ?? { auction: b.auction, window_start: ts(start), window_end: ts(start + 10_000), bids: 0, total: 0 };
    w.bids++;
    w.total += b.price;
    expected.set(k, w);
  }

  const run = pipec(['run', 'lake.pipe.sql'], { cwd: dir });
  assert.equal(run.status, 0, `pipec run:\n${run.stderr}`);
  // Read before moving it aside (its metadata holds absolute paths), so Flink's CREATE TABLE IF
  // NOT EXISTS makes a table of its own in the same place.
  const pipecRows = (await readIcebergTable({ metadata: metadataOf(path.join(dir, 'wh', 'db', 'windows')) })).rows;
  renameSync(path.join(dir, 'wh'), path.join(dir, 'wh-pipec'));

  const build = pipec(['build', 'lake.pipe.sql', '--target', 'flink', '--out', 'generated'], { cwd: dir });
  assert.equal(build.status, 0, `pipec build --target flink:\n${build.stderr}`);
  const script = readFileSync(path.join(dir, 'generated', 'flink_lake', 'flink', 'pipeline.sql'), 'utf8').replaceAll('${PIPEC_SPEC_DIR}', dir);
  assert.match(script, /CREATE CATALOG `lake` WITH \([^)]*'catalog-type' = 'hadoop'/);
  const { config, ddl, inserts } = splitScript(script);
  assert.equal(inserts.length, 1, 'one INSERT, into the Iceberg table');
  await runFlink({ ddl, inserts, sinks: {}, config, jars: flinkJars(['iceberg-flink-runtime-2.0']), hadoop: true });

  const flinkRows = (await readIcebergTable({ metadata: metadataOf(path.join(dir, 'wh', 'db', 'windows')) })).rows;
  const want = canon([...expected.values()] as unknown as Record<string, unknown>[]);
  assert.ok(want.length >= 18, '3 auctions x at least 6 windows');
  assert.deepEqual(canon(pipecRows), want, "pipec run's Iceberg rows = the windows of the input");
  assert.deepEqual(canon(flinkRows), want, "Flink's Iceberg rows = the windows of the input");
});
