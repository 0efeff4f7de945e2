// A `pipec build` large enough to compile on worker threads and to be written by write workers
// (dist/build-worker.mjs, dist/write-worker.mjs) writes exactly what the library API's build
// returns for the same specs compiled one by one on one thread: every reviewable file, every
// bundle, and a manifest per pipeline listing its files. Then `build --check` finds it up to date.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from '../../src/api.ts';
import { SHARE_MIN_FILES } from '../../src/build/write-build.ts';
import { MIN_SPECS_PER_THREAD } from '../../src/build/build-parallel.ts';
import { pipec, repoRoot } from './run-cli.ts';
import { fileTree } from '../support/file-tree.ts';

const SPECS = 250;

const asText = (c: string | Uint8Array) => Buffer.from(c).toString('latin1');

test('a build on every thread writes what the one-thread API build returns', { timeout: 300_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-build-many-'));
  try {
    // pipec.yaml: the project's targets (all + flink) and its profiles.
    cpSync(join(repoRoot, 'pipec.yaml'), join(dir, 'pipec.yaml'));
    mkdirSync(join(dir, 'specs'));
    const template = readFileSync(join(repoRoot, 'specs', 'quickstart.pipe.sql'), 'utf8');
    for (let i = 0; i < SPECS; i++) {
      const text = template.replace('PIPELINE quickstart', `PIPELINE many_${String(i).padStart(3, '0')}`).replace("INTERVAL '1' MINUTE", `INTERVAL '${1 + (i % 59)}' MINUTE`);
      writeFileSync(join(dir, 'specs', `many_${i}.pipe.sql`), text);
    }
    assert.ok(SPECS >= 2 * MIN_SPECS_PER_THREAD, 'enough specs for a build worker');
    const r = pipec(['build', '--out', 'gen', '--bundle', 'bund'], { cwd: dir });
    assert.equal(r.status, 0, r.stderr.slice(-2000));
    assert.match(r.stderr, new RegExp(`wrote \\d+ files for ${SPECS} pipelines to gen/`));

    const api = await build({ files: ['specs'], cwd: dir, targets: ['clickhouse', 'iceberg', 'runtime', 'flink'], env: {} });
    const written = fileTree(join(dir, 'gen'));
    const manifests = [...written.keys()].filter((k) => k.endsWith('/.pipec-manifest.json'));
    assert.equal(manifests.length, SPECS);
    assert.ok(written.size + SPECS * 2 >= 2 * SHARE_MIN_FILES, 'enough files for a write worker');
    const expected = new Map(Object.entries(api.outputs).map(([k, v]) => [k, asText(v)]));
    assert.deepEqual(new Map([...written].filter(([k]) => !k.endsWith('/.pipec-manifest.json'))), expected);
    for (const m of manifests) {
      const name = m.slice(0, m.indexOf('/'));
      const listed = JSON.parse(written.get(m)!).files as string[];
      assert.deepEqual(listed, [...expected.keys()].filter((k) => k.startsWith(`${name}/`)).map((k) => k.slice(name.length + 1)).sort(), m);
    }
    assert.deepEqual(fileTree(join(dir, 'bund')), new Map(Object.entries(api.bundles).map(([k, v]) => [k, asText(v)])));
    // The shared library bundle: one file per writing thread, hard-linked into that thread's
    // other folders. On 2 cores or more, two files: a write worker wrote part of the tree.
    const libraries = new Set(readdirSync(join(dir, 'bund')).map((p) => statSync(join(dir, 'bund', p, 'runtime.mjs')).ino));
    const files = written.size + Object.keys(api.bundles).length;
    assert.equal(libraries.size, Math.max(1, Math.min(availableParallelism(), Math.floor(files / SHARE_MIN_FILES))), 'one library file per writing thread');

    const check = pipec(['build', '--out', 'gen', '--check'], { cwd: dir });
    assert.equal(check.status, 0, check.stderr.slice(-2000));
    assert.match(check.stderr, /gen\/ is up to date/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
