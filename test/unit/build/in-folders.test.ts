// inFolders (write-outputs.ts): the build writes pipeline folders side by side; within one
// folder its files stay in order, a bounded number of folders run at once, and a failure stops
// new folders from starting and is thrown once the started ones end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inFolders } from '../../../src/build/write-outputs.ts';

const targets = (folders: number, files: number): Array<[string, string]> =>
  Array.from({ length: folders }, (_, f) => Array.from({ length: files }, (_, i) => [`p${String(f).padStart(3, '0')}/f${i}`, `/out/p${f}/f${i}`] as [string, string])).flat();

const tick = () => new Promise((r) => setImmediate(r));

test('files of one folder are written in order; folders overlap, but not without bound', async () => {
  const seen = new Map<string, number[]>();
  let open = 0;
  let most = 0;
  await inFolders(targets(100, 3), async (rel) => {
    open++;
    most = Math.max(most, open);
    await tick();
    const [folder, file] = rel.split('/') as [string, string];
    seen.set(folder, [...(seen.get(folder) ?? []), Number(file.slice(1))]);
    open--;
  });
  assert.equal(seen.size, 100);
  for (const [folder, order] of seen) assert.deepEqual(order, [0, 1, 2], folder);
  assert.ok(most > 1, 'folders are written side by side');
  assert.ok(most <= 16, `at most 16 folders at once, saw ${most}`);
});

test('a failure is thrown after the started folders end, and no new folder starts', async () => {
  const started = new Set<string>();
  let running = 0;
  const boom = new Error('disk full');
  await assert.rejects(
    inFolders(targets(100, 2), async (rel) => {
      started.add(rel.split('/')[0]!);
      running++;
      await tick();
      running--;
      if (rel === 'p003/f0') throw boom;
    }),
    (e) => e === boom && running === 0,
  );
  assert.ok(started.size < 100, `stopped starting folders (${started.size} started)`);
  assert.ok(!started.has('p099'));
});
