// The Flink target's script runs on real Apache Flink 2.3 (PyFlink's mini-cluster) and gives the
// rows `pipec run` gives: a Bid-like spec with TUMBLE, HOP, CUMULATE and SESSION windows (keyed,
// out-of-order input, late events dropped on both) and an interval join, compiled by
// `pipec build --target flink`, its statements run as written except that each file sink writes
// into a folder of the test (Flink's filesystem sink writes part files into a directory).
import { test } from 'node:test';
import { prng as rng } from '../../support/prng.ts';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { tempDir, readNdjson } from '../../fixtures/runtime/run-helpers.ts';
import { runFlink } from '../../support/flink.ts';
import { pipec } from '../../cli/run-cli.ts';
import { canon, splitScript } from './script.ts';


const T0 = Date.parse('2026-01-01T00:00:00Z');
const ts = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

/** 400 bids over 80 s, up to 800 ms out of order, and every 37th one 6 s late (dropped on both). */
function bids(): string {
  const r = rng(7);
  const out: string[] = [];
  for (let i = 0; i < 400; i++) {
    let t = T0 + i * 200 + Math.floor(r() * 800);
    if (i % 37 === 36) t -= 6000;
    const price = (Math.floor(r() * 10_000) / 100).toFixed(2);
    out.push(JSON.stringify({ auction: 1 + Math.floor(r() * 4), bidder: 1 + Math.floor(r() * 6), price: Number(price), bid_ts: ts(t) }));
  }
  return out.join('\n') + '\n';
}

function spec(dir: string): string {
  const win = (name: string, tvf: string, keys: string) => `
CREATE VIEW ${name} AS
SELECT ${keys}, window_start, window_end, COUNT(*) AS n, SUM(price) AS total, MAX(price) AS top
FROM ${tvf}
GROUP BY ${keys}, window_start, window_end
EMIT ON WINDOW CLOSE ON LATE DROP;
CREATE SINK ${name}_out FROM ${name} WITH (connector = 'file', path = '${dir}/pipec/${name}.ndjson', format = 'ndjson');`;
  return `
PIPELINE bids WITH (checkpoint_interval = '1 s');
CREATE SOURCE bids (
  auction BIGINT, bidder BIGINT, price DECIMAL(10, 2), bid_ts TIMESTAMP(3),
  WATERMARK FOR bid_ts AS bid_ts - INTERVAL '1' SECOND
) WITH (connector = 'file', path = '${dir}/bids.ndjson', format = 'ndjson');
CREATE SOURCE offers (
  auction BIGINT, bidder BIGINT, price DECIMAL(10, 2), bid_ts TIMESTAMP(3),
  WATERMARK FOR bid_ts AS bid_ts - INTERVAL '1' SECOND
) WITH (connector = 'file', path = '${dir}/offers.ndjson', format = 'ndjson');
CREATE SOURCE asks (
  auction BIGINT, ask DECIMAL(10, 2), ask_ts TIMESTAMP(3),
  WATERMARK FOR ask_ts AS ask_ts - INTERVAL '1' SECOND
) WITH (connector = 'file', path = '${dir}/asks.ndjson', format = 'ndjson');
${win('tumbled', "TUMBLE(bids, bid_ts, INTERVAL '10' SECOND)", 'auction')}
${win('hopped', "HOP(bids, bid_ts, INTERVAL '2' SECOND, INTERVAL '10' SECOND)", 'auction')}
${win('cumulated', "CUMULATE(bids, bid_ts, INTERVAL '5' SECOND, INTERVAL '20' SECOND)", 'auction')}
${win('sessions', "SESSION(bids PARTITION BY bidder, bid_ts, INTERVAL '1' SECOND)", 'bidder')}
-- Which rows of two sources are late at a join depends on how the engine interleaves reading
-- them; the join's inputs are in order, so no row is late on either engine.
-- pipec:allow join-late-unspecified
CREATE VIEW matched AS
SELECT b.auction, b.bidder, b.price, a.ask, b.bid_ts, a.ask_ts
FROM offers AS b JOIN asks AS a
  ON b.auction = a.auction AND a.ask_ts BETWEEN b.bid_ts AND b.bid_ts + INTERVAL '2' SECOND;
CREATE SINK matched_out FROM matched WITH (connector = 'file', path = '${dir}/pipec/matched.ndjson', format = 'ndjson');
`;
}

/** 300 offers, one every 250 ms, in order (the join's left input). */
function offers(): string {
  const r = rng(13);
  return Array.from({ length: 300 }, (_, i) => JSON.stringify({ auction: 1 + Math.floor(r() * 4), bidder: 1 + Math.floor(r() * 6), price: Number((r() * 100).toFixed(2)), bid_ts: ts(T0 + i * 250) })).join('\n') + '\n';
}

/** 60 asks, one every 1.3 s, in order. */
function asks(): string {
  const r = rng(11);
  return Array.from({ length: 60 }, (_, i) => JSON.stringify({ auction: 1 + Math.floor(r() * 4), ask: Number((r() * 100).toFixed(2)), ask_ts: ts(T0 + i * 1300) })).join('\n') + '\n';
}

test('the Flink script of a windows-and-join spec gives pipec run\'s rows on real Flink', { timeout: 900_000 }, async () => {
  const dir = tempDir('pipec-flink-target-');
  writeFileSync(path.join(dir, 'bids.ndjson'), bids());
  writeFileSync(path.join(dir, 'asks.ndjson'), asks());
  writeFileSync(path.join(dir, 'offers.ndjson'), offers());
  writeFileSync(path.join(dir, 'bids.pipe.sql'), spec(dir));
  const run = pipec(['run', 'bids.pipe.sql'], { cwd: dir });
  assert.equal(run.status, 0, `pipec run:\n${run.stderr}`);
  const build = pipec(['build', 'bids.pipe.sql', '--target', 'flink', '--out', 'generated'], { cwd: dir });
  assert.equal(build.status, 0, `pipec build --target flink:\n${build.stderr}`);
  const script = readFileSync(path.join(dir, 'generated', 'bids', 'flink', 'pipeline.sql'), 'utf8');
  const { config, ddl, inserts } = splitScript(script);
  assert.equal(inserts.length, 5, 'one INSERT per sink');

  const sinks: Record<string, string> = {};
  const flinkDdl = ddl.map((stmt) => {
    const m = /^CREATE TEMPORARY TABLE `(\w+)__sink`/.exec(stmt);
    if (!m) return stmt;
    const folder = path.join(dir, 'flink', m[1]!);
    mkdirSync(folder, { recursive: true });
    sinks[m[1]!] = folder;
    return stmt.replace(/'path' = '[^']*'/, `'path' = '${folder}'`);
  });
  const result = await runFlink({ ddl: flinkDdl, inserts, sinks, config });

  for (const name of ['tumbled_out', 'hopped_out', 'cumulated_out', 'sessions_out', 'matched_out']) {
    const pipecRows = readNdjson(path.join(dir, 'pipec', `${name.replace(/_out$/, '')}.ndjson`));
    const flinkRows = result.sinks[name] ?? [];
    assert.ok(pipecRows.length > 0, `${name}: pipec wrote rows`);
    assert.deepEqual(canon(flinkRows), canon(pipecRows), `${name}: Flink's rows = pipec run's rows`);
  }
});
