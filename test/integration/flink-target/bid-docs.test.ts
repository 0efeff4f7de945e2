// The Flink documentation's Bid window examples (TUMBLE, TUMBLE with offset, HOP, CUMULATE: SUM of
// price per window; SESSION partitioned by supplier) written as one pipec spec, compiled with
// `pipec build --target flink` and run on real Flink 2.3: each gives the documented rows (the
// shared fixture test/fixtures/windows/bids-expected.json, which the runtime test
// test/integration/runtime/bid-windows.test.ts checks too). The spec's paths are relative, so
// this also runs the script as docs/flink.md says: ${PIPEC_SPEC_DIR} set to the spec's folder.
// The watermark delay is 5 minutes, as in the runtime test: the supplier file is out of order by that much.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { runFlink } from '../../support/flink.ts';
import { pipec, repoRoot } from '../../cli/run-cli.ts';
import { canon, splitScript } from './script.ts';

const expected = JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/windows/bids-expected.json'), 'utf8')) as { cases: { name: string; rows: Record<string, unknown>[] }[] };
const rowsOf = (name: string) => expected.cases.find((c) => c.name === name)!.rows;

const VIEWS: [string, string, string][] = [
  ['tumble_10m_sum', 'bid', "TUMBLE(bid, bidtime, INTERVAL '10' MINUTE)"],
  ['tumble_10m_offset_1m_sum', 'bid', "TUMBLE(bid, bidtime, INTERVAL '10' MINUTE, INTERVAL '1' MINUTE)"],
  ['hop_5m_10m_sum', 'bid', "HOP(bid, bidtime, INTERVAL '5' MINUTE, INTERVAL '10' MINUTE)"],
  ['cumulate_2m_10m_sum', 'bid', "CUMULATE(bid, bidtime, INTERVAL '2' MINUTE, INTERVAL '10' MINUTE)"],
];

function spec(): string {
  const src = (name: string, file: string, extra: string) => `CREATE SOURCE ${name} (
  bidtime TIMESTAMP(3), price DECIMAL(10, 2), item STRING${extra},
  WATERMARK FOR bidtime AS bidtime - INTERVAL '5' MINUTE
) WITH (connector = 'file', path = '${file}', format = 'ndjson');`;
  const views = VIEWS.map(
    ([name, , tvf]) => `CREATE VIEW ${name} AS
SELECT window_start, window_end, SUM(price) AS price FROM ${tvf}
GROUP BY window_start, window_end EMIT ON WINDOW CLOSE ON LATE DROP;
CREATE SINK ${name}_out FROM ${name} WITH (connector = 'file', path = 'out/${name}', format = 'ndjson');`,
  );
  return [
    src('bid', 'bids.ndjson', ''),
    src('supplier_bid', 'bids-supplier.ndjson', ', supplier_id STRING'),
    ...views,
    `CREATE VIEW sessions AS
SELECT supplier_id, window_start, window_end, SUM(price) AS price
FROM SESSION(supplier_bid PARTITION BY supplier_id, bidtime, INTERVAL '2' MINUTE)
GROUP BY supplier_id, window_start, window_end EMIT ON WINDOW CLOSE ON LATE DROP;
CREATE SINK sessions_out FROM sessions WITH (connector = 'file', path = 'out/sessions', format = 'ndjson');`,
    '',
  ].join('\n');
}

test("the Flink docs' Bid window examples give the documented rows on Flink from the generated script", { timeout: 900_000 }, async () => {
  const dir = tempDir('pipec-flink-bids-');
  copyFileSync(path.join(repoRoot, 'test/fixtures/windows/bids.ndjson'), path.join(dir, 'bids.ndjson'));
  copyFileSync(path.join(repoRoot, 'test/fixtures/runtime/bids-supplier.ndjson'), path.join(dir, 'bids-supplier.ndjson'));
  writeFileSync(path.join(dir, 'bids.pipe.sql'), spec());
  const build = pipec(['build', 'bids.pipe.sql', '--target', 'flink', '--out', 'generated'], { cwd: dir });
  assert.equal(build.status, 0, build.stderr);
  const script = readFileSync(path.join(dir, 'generated', 'bids', 'flink', 'pipeline.sql'), 'utf8');
  assert.match(script, /'path' = '\$\{PIPEC_SPEC_DIR\}\/bids\.ndjson'/, 'relative paths are anchored');
  // As docs/flink.md says: substitute the placeholder with the spec's folder, run the rest as written.
  const { config, ddl, inserts } = splitScript(script.replaceAll('${PIPEC_SPEC_DIR}', dir));
  const names = [...VIEWS.map(([n]) => n), 'sessions'];
  const sinks = Object.fromEntries(names.map((n) => [n, path.join(dir, 'out', n)]));
  const result = await runFlink({ ddl, inserts, sinks, config });
  for (const [name] of VIEWS) assert.deepEqual(canon(result.sinks[name] ?? []), canon(rowsOf(name)), `${name}: the documented rows`);
  // Flink docs (window aggregation, SESSION): touching sessions merge ([08:05,08:07) + [08:07,08:09)).
  assert.deepEqual(
    canon(result.sinks.sessions ?? []),
    canon([
      { supplier_id: 'supplier1', window_start: '2020-04-15 08:05:00.000', window_end: '2020-04-15 08:09:00.000', price: '6.00' },
      { supplier_id: 'supplier2', window_start: '2020-04-15 08:09:00.000', window_end: '2020-04-15 08:13:00.000', price: '8.00' },
      { supplier_id: 'supplier1', window_start: '2020-04-15 08:13:00.000', window_end: '2020-04-15 08:15:00.000', price: '1.00' },
      { supplier_id: 'supplier2', window_start: '2020-04-15 08:17:00.000', window_end: '2020-04-15 08:19:00.000', price: '6.00' },
    ]),
    'sessions: the documented rows',
  );
});
