// `pipec run` loads the connector libraries its plan uses and no others
// (targets/runtime/module-loaders.ts): a file → file spec starts without kafkajs, pg,
// @clickhouse/client, avsc or protobufjs (together ~130 ms of CPU at start-up), and a spec
// with a ClickHouse sink does load @clickhouse/client. Each run is the built CLI, with a
// preload that records every module name required.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pipec } from './run-cli.ts';
import { tempDir } from '../fixtures/runtime/run-helpers.ts';
import { MODULE_LOADERS } from '../../targets/runtime/module-loaders.ts';
import { ALL_MODULES } from '../../targets/runtime/all-modules.ts';
import { ALL_RUNTIME_MODULES } from '../../src/connectors/runtime-modules.ts';

const CONNECTOR_LIBRARIES = ['kafkajs', 'pg', 'pg-logical-replication', '@clickhouse/client', 'avsc', 'protobufjs'];

const HOOK = `const Module = require('module');
const seen = new Set();
const load = Module._load;
Module._load = function (request) { seen.add(request); return load.apply(this, arguments); };
process.on('exit', () => require('fs').writeFileSync(process.env.PIPEC_TEST_LOADED, [...seen].join('\\n')));
`;

function runRecording(dir: string, spec: string): { status: number; stderr: string; loaded: string[] } {
  writeFileSync(path.join(dir, 'hook.cjs'), HOOK);
  const loadedFile = path.join(dir, 'loaded.txt');
  const r = pipec(['run', spec], { cwd: dir, env: { NODE_OPTIONS: `--require ${path.join(dir, 'hook.cjs')}`, PIPEC_TEST_LOADED: loadedFile } });
  return { status: r.status, stderr: r.stderr, loaded: readFileSync(loadedFile, 'utf8').split('\n') };
}

test('a file → file spec runs without loading any connector library', () => {
  const dir = tempDir('pipec-modules-');
  writeFileSync(path.join(dir, 'in.ndjson'), '{"id":1,"name":"a"}\n{"id":2,"name":"b"}\n');
  writeFileSync(
    path.join(dir, 'f.pipe.sql'),
    `CREATE SOURCE ev (id BIGINT, name STRING) WITH (connector = 'file', path = 'in.ndjson', format = 'ndjson');
CREATE SINK out FROM ev WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');\n`,
  );
  const r = runRecording(dir, 'f.pipe.sql');
  assert.equal(r.status, 0, r.stderr);
  assert.equal(readFileSync(path.join(dir, 'out.ndjson'), 'utf8'), '{"id":1,"name":"a"}\n{"id":2,"name":"b"}\n');
  assert.deepEqual(r.loaded.filter((m) => CONNECTOR_LIBRARIES.includes(m)), []);
});

test('a ClickHouse sink loads @clickhouse/client (and says which server it cannot reach)', () => {
  const dir = tempDir('pipec-modules-');
  writeFileSync(path.join(dir, 'in.ndjson'), '{"id":1}\n');
  writeFileSync(
    path.join(dir, 'c.pipe.sql'),
    `CREATE SOURCE ev (id BIGINT) WITH (connector = 'file', path = 'in.ndjson', format = 'ndjson');
CREATE SINK out FROM ev WITH (connector = 'clickhouse', url = 'http://127.0.0.1:1', table = 't');\n`,
  );
  const r = runRecording(dir, 'c.pipe.sql');
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /clickhouse sink 'out' \(http:\/\/127\.0\.0\.1:1, table default\.t\): cannot reach the server/);
  assert.ok(r.loaded.includes('@clickhouse/client'), r.loaded.join(', '));
  assert.deepEqual(r.loaded.filter((m) => CONNECTOR_LIBRARIES.includes(m) && m !== '@clickhouse/client'), []);
});

test('the loaders are the modules there are: those the compiler names, the same objects as all-modules.ts', async () => {
  assert.deepEqual(Object.keys(MODULE_LOADERS), ALL_MODULES.map((m) => m.name));
  assert.deepEqual(Object.keys(MODULE_LOADERS), ALL_RUNTIME_MODULES.map((r) => r.module));
  for (const m of ALL_MODULES) assert.equal(await MODULE_LOADERS[m.name]!(), m, m.name);
});
