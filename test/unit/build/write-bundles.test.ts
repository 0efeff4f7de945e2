// writeBundles: pipelines sharing a library bundle (the same contents object) get one file
// hard-linked into each folder, every folder stays complete on its own, and a later build never
// writes through such a link into a folder it does not build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeBundles, type BuildResult } from '../../../src/build/build.ts';

const result = (bundles: [string, string][]): BuildResult => ({ results: [], outputs: new Map(), bundles: new Map(bundles), pipelines: [], ok: true });

test('a shared runtime.mjs is written once and linked; a rebuild of one folder leaves the other intact', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'pipec-bundles-'));
  try {
    const lib = 'export const v = 1;\n';
    await writeBundles(cwd, 'b', result([['a/pipeline.mjs', 'a'], ['a/runtime.mjs', lib], ['c/pipeline.mjs', 'c'], ['c/runtime.mjs', lib]]));
    const a = statSync(join(cwd, 'b', 'a', 'runtime.mjs'));
    const c = statSync(join(cwd, 'b', 'c', 'runtime.mjs'));
    assert.equal(readFileSync(join(cwd, 'b', 'c', 'runtime.mjs'), 'utf8'), lib);
    assert.equal(a.ino, c.ino, 'one file, linked');
    // The same build again writes nothing: same files (inodes), same mtimes.
    const files = ['a/pipeline.mjs', 'a/runtime.mjs', 'c/pipeline.mjs', 'c/runtime.mjs'];
    const before = files.map((f) => statSync(join(cwd, 'b', f)));
    await writeBundles(cwd, 'b', result([['a/pipeline.mjs', 'a'], ['a/runtime.mjs', lib], ['c/pipeline.mjs', 'c'], ['c/runtime.mjs', lib]]));
    files.forEach((f, i) => {
      const st = statSync(join(cwd, 'b', f));
      assert.deepEqual([st.ino, st.mtimeMs], [before[i]!.ino, before[i]!.mtimeMs], `${f} untouched`);
    });
    // Rebuild only pipeline a with another library: c keeps its own.
    await writeBundles(cwd, 'b', result([['a/pipeline.mjs', 'a2'], ['a/runtime.mjs', 'export const v = 2;\n']]));
    assert.equal(readFileSync(join(cwd, 'b', 'a', 'runtime.mjs'), 'utf8'), 'export const v = 2;\n');
    assert.equal(readFileSync(join(cwd, 'b', 'c', 'runtime.mjs'), 'utf8'), lib, 'not written through the link');
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});
