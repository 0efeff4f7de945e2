// writeBuild (src/build/write-build.ts): a large build is written by several threads, each a
// share of whole pipelines. What lands on disk must be what one thread writes — the same files,
// manifests and stale-file cleaning — and a failure in a worker's share must reach the caller
// as the error the CLI names (an OutputPathError, or a file-system error with its code and path).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { SHARE_MIN_FILES, splitShares, writeBuild, type BuildToWrite } from '../../../src/build/write-build.ts';
import { OutputPathError } from '../../../src/build/write-outputs.ts';
import { fileTree } from '../../support/file-tree.ts';

const LIB = `export const library = ${JSON.stringify('x'.repeat(20_000))};\n`;
const name = (i: number) => `p${String(i).padStart(3, '0')}`;

/** `count` pipelines of 4 outputs (one in a subfolder) and 2 bundles, one of them a shared library. */
function build(count: number, extra: (i: number) => string[] = () => []): BuildToWrite {
  const outputs = new Map<string, string>();
  const bundles = new Map<string, string>();
  for (let i = 0; i < count; i++) {
    const p = name(i);
    for (const f of ['plan.txt', 'alerts.yaml', 'flink/pipeline.sql', 'runtime/pipeline.gen.mjs', ...extra(i)]) outputs.set(`${p}/${f}`, `${p} ${f}\n`);
    bundles.set(`${p}/pipeline.mjs`, `// ${p}\n`);
    bundles.set(`${p}/runtime.mjs`, LIB);
  }
  return { outputs, bundles, pipelines: Array.from({ length: count }, (_, i) => name(i)) };
}

const libraryInodes = (dir: string, count: number) => new Set(Array.from({ length: count }, (_, i) => statSync(join(dir, name(i), 'runtime.mjs')).ino));

// 400 pipelines: 400 × (4 outputs + 2 bundles + a manifest) = 2,800 files, two shares.
const COUNT = 400;

test('two threads write what one thread writes, and each share links its own library copy', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'pipec-write-build-'));
  try {
    assert.ok(COUNT * 7 >= 2 * SHARE_MIN_FILES, 'the build is large enough for two shares');
    const one = await writeBuild(cwd, 'one/out', 'one/bundles', build(COUNT), 1);
    const two = await writeBuild(cwd, 'two/out', 'two/bundles', build(COUNT), 2);
    assert.deepEqual([one, two], [{ removed: [], notes: [] }, { removed: [], notes: [] }]);
    const a = fileTree(join(cwd, 'one'));
    assert.equal(a.size, COUNT * 7);
    assert.equal(a.get('out/p123/flink/pipeline.sql'), 'p123 flink/pipeline.sql\n');
    assert.deepEqual(JSON.parse(a.get('out/p399/.pipec-manifest.json')!).files, ['alerts.yaml', 'flink/pipeline.sql', 'plan.txt', 'runtime/pipeline.gen.mjs']);
    assert.deepEqual(fileTree(join(cwd, 'two')), a);
    // The library is written once per thread and hard-linked into that thread's other folders:
    // one file for one thread, two for two (the mark that a second thread wrote half the tree).
    assert.equal(libraryInodes(join(cwd, 'one', 'bundles'), COUNT).size, 1);
    assert.equal(libraryInodes(join(cwd, 'two', 'bundles'), COUNT).size, 2);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

test('stale files of pipelines in every share are removed, and unchanged files are left alone', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'pipec-write-build-'));
  try {
    const withExtra = build(COUNT, (i) => (i === 0 || i === COUNT - 1 ? ['old/stale.txt'] : []));
    await writeBuild(cwd, 'out', 'bundles', withExtra, 2);
    assert.ok(statSync(join(cwd, 'out', name(COUNT - 1), 'old', 'stale.txt')).isFile());
    const kept = statSync(join(cwd, 'out', 'p200', 'plan.txt'));
    const report = await writeBuild(cwd, 'out', 'bundles', build(COUNT), 2);
    assert.deepEqual(report.removed.sort(), ['p000/old/stale.txt', 'p399/old/stale.txt']);
    assert.ok(!readdirSync(join(cwd, 'out', name(COUNT - 1))).includes('old'), 'the emptied folder is removed');
    const again = statSync(join(cwd, 'out', 'p200', 'plan.txt'));
    assert.deepEqual([again.ino, again.mtimeMs], [kept.ino, kept.mtimeMs], 'an unchanged file is not rewritten');
    await writeBuild(cwd, 'fresh', 'fresh-bundles', build(COUNT), 1);
    assert.deepEqual(fileTree(join(cwd, 'out')), fileTree(join(cwd, 'fresh')), 'the rebuilt tree is a fresh build');
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

test("a failure in a worker's share reaches the caller as the error the CLI names", async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'pipec-write-build-'));
  try {
    // The last pipelines are the second share's: a folder where a file goes, a file where a folder goes.
    mkdirSync(join(cwd, 'a', 'out', name(COUNT - 1), 'plan.txt'), { recursive: true });
    await assert.rejects(writeBuild(cwd, 'a/out', 'a/bundles', build(COUNT), 2), (e) => e instanceof OutputPathError && /a\/out\/p399\/plan\.txt: a folder is in the way/.test(e.message));
    mkdirSync(join(cwd, 'b', 'out'), { recursive: true });
    writeFileSync(join(cwd, 'b', 'out', name(COUNT - 2)), 'a file, not a folder');
    await assert.rejects(writeBuild(cwd, 'b/out', 'b/bundles', build(COUNT), 2), (e: NodeJS.ErrnoException) => typeof e.code === 'string' && String(e.path).includes(`b/out/${name(COUNT - 2)}`));
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

test('shares are whole pipelines, in sorted order, of about the same size', () => {
  const b = build(101, (i) => (i % 10 === 0 ? ['a', 'b', 'c', 'd'] : []));
  const shares = splitShares({ cwd: '/', outDir: 'o', bundleDir: 'b', ...b }, 3);
  assert.deepEqual(shares.flatMap((s) => s.pipelines), b.pipelines, 'every pipeline once, in order');
  for (const s of shares) {
    const mine = new Set(s.pipelines);
    for (const key of ['outputs', 'bundles'] as const) for (const rel of s[key].keys()) assert.ok(mine.has(rel.split('/')[0]!), `${rel} is with its pipeline`);
  }
  assert.equal(shares.reduce((n, s) => n + s.outputs.size + s.bundles.size, 0), b.outputs.size + b.bundles.size);
  const sizes = shares.map((s) => s.outputs.size + s.bundles.size + s.pipelines.length);
  assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 11, `balanced: ${sizes.join(', ')}`);
});

test('a small build, or folders one inside the other, stay on this thread', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'pipec-write-build-'));
  try {
    await writeBuild(cwd, 'small/out', 'small/bundles', build(10), 2);
    assert.equal(libraryInodes(join(cwd, 'small', 'bundles'), 10).size, 1);
    await writeBuild(cwd, 'nested', 'nested/bundles', build(COUNT), 2);
    assert.equal(libraryInodes(join(cwd, 'nested', 'bundles'), COUNT).size, 1);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});
