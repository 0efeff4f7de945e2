// A runtime bundle carries only the connectors and formats its plan uses (issue 14, item 2):
// the quickstart (datagen → stdout + file) has no Kafka, PostgreSQL, ClickHouse or Iceberg
// code, while a Kafka spec's bundle has kafkajs and a Protobuf spec's has protobufjs. Checked on
// the esbuild metafile's inputs of the library bundle the runtime target emits. The README's
// bundle-size table is computed here too (within 5 %; `UPDATE_GOLDEN=1` rewrites it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileFile } from '../../../src/build/compile.ts';
import { discoverSpecs } from '../../../src/build/discover.ts';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import { runtimeTarget } from '../../../targets/runtime/index.ts';
import { bundleLibrary } from '../../../targets/runtime/bundle.ts';
import { GOLDEN_ENV } from '../../golden/golden-harness.ts';

const repoRoot = join(import.meta.dirname, '..', '..', '..');

interface SpecBundle {
  spec: string;
  modules: string[];
  inputs: string[];
  pipelineBytes: number;
  runtimeBytes: number;
  runtimeText: string;
}

async function bundleOf(spec: string): Promise<SpecBundle> {
  const r = await compileFile(spec, { cwd: repoRoot, env: GOLDEN_ENV });
  assert.ok(r.plan && !r.diagnostics.hasErrors, `${spec} compiles`);
  const files = await runtimeTarget.emit(r.plan, { diagnostics: new DiagnosticBag(), readPrevious: () => null });
  const get = (p: string): string => files.find((f) => f.path === p)!.contents as string;
  const lock = JSON.parse(get('runtime/bundle.lock.json')) as { modules: string[] };
  const lib = await bundleLibrary(lock.modules);
  assert.equal(get('runtime.mjs'), lib.text, 'the emitted runtime.mjs is the library bundle of those modules');
  return { spec, modules: lock.modules, inputs: lib.inputs, pipelineBytes: Buffer.byteLength(get('pipeline.mjs')), runtimeBytes: lib.bytes, runtimeText: lib.text };
}

const has = (b: SpecBundle, re: RegExp): string[] => b.inputs.filter((f) => re.test(f));
const KAFKA = /node_modules\/kafkajs\//;
const OTHER_CONNECTORS: [string, RegExp][] = [
  ['kafkajs', KAFKA],
  ['pg', /node_modules\/pg\//],
  ['pg-logical-replication', /node_modules\/pg-logical-replication\//],
  ['@clickhouse/client', /node_modules\/@clickhouse\//],
  ['the Iceberg writer', /^targets\/iceberg\/writer\//],
  ['the Kafka, CDC, ClickHouse and Iceberg connectors', /^targets\/runtime\/lib\/(kafka|postgres-cdc|clickhouse|iceberg)\//],
  ['avsc', /node_modules\/avsc\//],
  ['protobufjs', /node_modules\/protobufjs\//],
];

test('the quickstart bundle has only datagen, stdout and file-sink code', async () => {
  const b = await bundleOf('specs/quickstart.pipe.sql');
  assert.deepEqual(b.modules, ['datagen', 'file-sink', 'stdout']);
  for (const [what, re] of OTHER_CONNECTORS) assert.deepEqual(has(b, re), [], `no ${what} in the quickstart bundle`);
  // better-sqlite3 is external (a native addon): not even a reference to it.
  assert.ok(!b.runtimeText.includes('better-sqlite3'), 'no better-sqlite3 import in the quickstart bundle');
  assert.ok(b.runtimeBytes < 400_000, `quickstart runtime.mjs is ${b.runtimeBytes} bytes`);
});

test('a Kafka spec bundles kafkajs; a Protobuf source brings protobufjs and not the Avro decoder', async () => {
  const iot = await bundleOf('specs/iot_sensors.pipe.yaml');
  assert.ok(has(iot, KAFKA).length > 0, 'kafkajs is in the Kafka spec bundle');
  assert.deepEqual(has(iot, /node_modules\/(protobufjs|avsc)\//), [], 'JSON values: no binary format library');
  const clicks = await bundleOf('specs/clickstream_sessions.pipe.sql');
  assert.ok(clicks.modules.includes('protobuf'));
  assert.ok(has(clicks, /node_modules\/protobufjs\//).length > 0);
  // (avsc itself is there: the Iceberg writer's manifests are Avro files.)
  assert.deepEqual(has(clicks, /^targets\/runtime\/lib\/formats\/avro\.ts$/), []);
  // (pg itself is there: the Iceberg writer's SQL catalog may live in PostgreSQL.)
  assert.deepEqual(has(clicks, /node_modules\/pg-logical-replication\/|^targets\/runtime\/lib\/postgres-cdc\//), [], 'no CDC source without a postgres-cdc source');
});

// ------------------------------------------------------------------ README table

const BEGIN = '<!-- bundle-sizes:begin (test/unit/runtime/bundle-connectors.test.ts) -->';
const END = '<!-- bundle-sizes:end -->';
const kib = (n: number): string => `${(n / 1024).toFixed(0)} KiB`;

test('the README lists each spec’s bundle size (within 5 %)', async () => {
  const specs = discoverSpecs(['specs'], repoRoot).files;
  const rows: SpecBundle[] = [];
  for (const s of specs) rows.push(await bundleOf(s));
  const table = [
    '| spec | runtime modules | `pipeline.mjs` | `runtime.mjs` |',
    '|---|---|---|---|',
    ...rows.map((r) => `| \`${r.spec}\` | ${r.modules.join(', ')} | ${kib(r.pipelineBytes)} | ${kib(r.runtimeBytes)} |`),
  ].join('\n');
  const readmePath = join(repoRoot, 'README.md');
  const readme = readFileSync(readmePath, 'utf8');
  const at = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  assert.ok(at >= 0 && end > at, 'README.md has the bundle-size table markers');
  if (process.env.UPDATE_GOLDEN === '1') {
    writeFileSync(readmePath, readme.slice(0, at + BEGIN.length) + '\n' + table + '\n' + readme.slice(end));
    return;
  }
  const listed = readme.slice(at + BEGIN.length, end).trim().split('\n').slice(2);
  assert.equal(listed.length, rows.length, 'one row per spec (UPDATE_GOLDEN=1 rewrites the table)');
  for (let i = 0; i < rows.length; i++) {
    const cells = listed[i]!.split('|').map((c) => c.trim());
    const r = rows[i]!;
    assert.equal(cells[1], `\`${r.spec}\``);
    assert.equal(cells[2], r.modules.join(', '), `${r.spec}: modules`);
    for (const [cell, bytes] of [[cells[3]!, r.pipelineBytes], [cells[4]!, r.runtimeBytes]] as const) {
      const listedKib = Number(cell.replace(' KiB', ''));
      assert.ok(Math.abs(listedKib * 1024 - bytes) <= Math.max(0.05 * bytes, 1024), `${r.spec}: README says ${cell}, the bundle has ${kib(bytes)} (UPDATE_GOLDEN=1 rewrites the table)`);
    }
  }
});
