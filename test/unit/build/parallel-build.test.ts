// A build compiled on worker threads (src/build/build-parallel.ts) is the serial build: the same
// tree built both ways gives the same files byte for byte (reviewable outputs, manifests, runtime
// bundles), the same diagnostics in the same order, and the same pipelines and ok flag, also
// with a spec in error, two specs claiming one pipeline name, and Iceberg locks read back from
// an earlier build. Small builds never start a worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { buildSpecs, writeBundles, writeOutputs, type BuildResult } from '../../../src/build/build.ts';
import { parallelThreads, MIN_SPECS_PER_THREAD } from '../../../src/build/build-parallel.ts';
import { resolveTargets } from '../../../src/build/targets.ts';
import { discoverSpecs } from '../../../src/build/discover.ts';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import { syntheticSpan } from '../../../src/diagnostics/span.ts';
import type { Target } from '../../../src/plan/physical/target-api.ts';
import { fileTree } from '../../support/file-tree.ts';

const repoRoot = join(import.meta.dirname, '..', '..', '..');
const QUICKSTART = readFileSync(join(repoRoot, 'specs', 'quickstart.pipe.sql'), 'utf8');
const SOURCE = "CREATE SOURCE s (id BIGINT NOT NULL, ts TIMESTAMP(3) NOT NULL) WITH (connector = 'datagen', total_rows = 1);\n";
const ICEBERG =
  `PIPELINE lake_p;\n${SOURCE}CREATE CATALOG lake WITH (type = 'filesystem', warehouse = 'file:///tmp/pipec-unit/wh');\n` +
  "CREATE SINK lake_sink FROM s WITH (connector = 'iceberg', catalog = 'lake', table = 'db.t');\n";

/** A project whose specs give warnings (Flink), an error, a duplicate name and an Iceberg table. */
function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-parallel-'));
  mkdirSync(join(dir, 'specs'));
  for (let i = 0; i < 9; i++) {
    const text = QUICKSTART.replace('PIPELINE quickstart', `PIPELINE q_${i}`).replace("INTERVAL '1' MINUTE", `INTERVAL '${1 + i}' MINUTE`);
    writeFileSync(join(dir, 'specs', `q_${i}.pipe.sql`), text);
  }
  // Both claim q_3 (an unquoted name is folded to lower case): the first in file order, specs/dup_a…, owns it.
  writeFileSync(join(dir, 'specs', 'dup_a.pipe.sql'), QUICKSTART.replace('PIPELINE quickstart', 'PIPELINE Q_3'));
  writeFileSync(join(dir, 'specs', 'broken.pipe.sql'), `PIPELINE broken;\n${SOURCE}CREATE SINK out FROM s WITH (connector = 'stdout');\nCREATE VIEW v AS SELECT nope FROM s;\n`);
  writeFileSync(join(dir, 'specs', 'lake.pipe.sql'), ICEBERG);
  return dir;
}

async function buildInto(dir: string, out: string, threads: number | null): Promise<BuildResult> {
  const targets = resolveTargets('all,flink') as Target[];
  const files = discoverSpecs(['specs'], dir).files;
  const result = await buildSpecs({ cwd: dir, env: { get: () => undefined }, files, targets, outDir: `${out}/generated`, ...(threads ? { parallel: { env: {}, threads, workersOnly: true } } : {}) });
  await writeOutputs(dir, `${out}/generated`, result);
  await writeBundles(dir, `${out}/bundles`, result);
  return result;
}

/** What `pipec build` prints: every result's diagnostics, sorted, in file order. */
const printed = (r: BuildResult) => r.results.flatMap((x) => x.diagnostics.sorted());

test('a parallel build writes the serial build\'s files and reports its diagnostics in its order', async () => {
  const dir = project();
  try {
    const serial = await buildInto(dir, 'serial', null);
    const parallel = await buildInto(dir, 'parallel', 2);
    // The tree is what a user relies on: errors, a duplicate, warnings and outputs all present.
    assert.equal(serial.ok, false);
    const codes = printed(serial).map((d) => d.code);
    assert.ok(codes.includes('duplicate-pipeline-name') && codes.includes('unknown-column') && codes.includes('flink-datagen-values'), codes.join(' '));
    assert.deepEqual(serial.pipelines, ['q_3', 'lake_p', 'q_0', 'q_1', 'q_2', 'q_4', 'q_5', 'q_6', 'q_7', 'q_8']);
    assert.equal(parallel.ok, serial.ok);
    assert.deepEqual(parallel.pipelines, serial.pipelines);
    assert.deepEqual(printed(parallel), printed(serial));
    assert.deepEqual(parallel.results.map((r) => r.path), serial.results.map((r) => r.path));
    const a = fileTree(join(dir, 'serial'));
    const b = fileTree(join(dir, 'parallel'));
    assert.ok(a.size > 60, `${a.size} files`);
    assert.deepEqual([...b.keys()], [...a.keys()]);
    for (const [k, v] of a) assert.equal(b.get(k), v, k);
    // Built again over its own earlier outputs (the Iceberg field-id lock is read back): still the same.
    const again = await buildInto(dir, 'parallel', 2);
    assert.deepEqual(printed(again), printed(serial));
    assert.deepEqual(fileTree(join(dir, 'parallel')), b);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('only builds large enough to repay a worker use threads', () => {
  const files = (n: number) => Array.from({ length: n }, (_, i) => `specs/s${i}.pipe.sql`);
  assert.equal(parallelThreads({ files: files(1), parallel: { env: {} } }), 1);
  assert.equal(parallelThreads({ files: files(2 * MIN_SPECS_PER_THREAD - 1), parallel: { env: {} } }), 1);
  // Without the env as values (the library API), or with in-memory sources: one thread.
  assert.equal(parallelThreads({ files: files(1000) }), 1);
  assert.equal(parallelThreads({ files: files(1000), parallel: { env: {} }, readText: () => null }), 1);
  assert.equal(parallelThreads({ files: files(3), parallel: { env: {}, threads: 8 } }), 3);
});

test('a bag sent between threads keeps its diagnostics and hides the same values afterwards', () => {
  const bag = new DiagnosticBag();
  bag.hideValue('PIPEC_SHOP_DSN', 'postgres://u:hunter22@db/shop');
  bag.report('duplicate-pipeline-name', syntheticSpan('a.pipe.sql'), { name: 'x', other: 'b.pipe.sql' });
  const copy = DiagnosticBag.fromData(structuredClone(bag.toData()));
  assert.deepEqual(copy.items, bag.items);
  const d = copy.report('duplicate-pipeline-name', syntheticSpan('a.pipe.sql'), { name: 'postgres://u:hunter22@db/shop', other: 'b.pipe.sql' });
  assert.ok(!d.message.includes('hunter22') && d.message.includes('${PIPEC_SHOP_DSN}'), d.message);
});
