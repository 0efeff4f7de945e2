// The checkpoint directory lock (checkpoint-lock.ts): one holder per directory, scaled-out
// members each lock their own member directory, a lock left by a dead process on this host is
// broken, one held on another host is not (pipec cannot tell whether it still runs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { hostname } from 'node:os';
import * as path from 'node:path';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { CheckpointLock, LockedError } from '../../../targets/runtime/lib/checkpoint-lock.ts';
import { memberDir } from '../../../targets/runtime/lib/member-store.ts';

const lockOf = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'lock'), 'utf8')) as { pid: number; host: string; pipeline: string };

test('one holder per directory; released, the directory can be locked again', () => {
  const dir = path.join(tempDir('pipec-lock-'), 'ck');
  const a = CheckpointLock.acquire(dir, 'p');
  assert.equal(lockOf(dir).pid, process.pid);
  assert.equal(lockOf(dir).host, hostname());
  assert.throws(() => CheckpointLock.acquire(dir, 'p'), (e: Error) => e instanceof LockedError && e.message.includes(`the checkpoint directory ${dir} is in use by this process`));
  a.release();
  assert.equal(fs.existsSync(path.join(dir, 'lock')), false);
  CheckpointLock.acquire(dir, 'p').release();
});

test('scaled out: members lock their own directories under the shared root, and the root stays free', () => {
  const root = tempDir('pipec-lock-');
  const a = CheckpointLock.acquire(memberDir(root, 'a'), 'p');
  const b = CheckpointLock.acquire(memberDir(root, 'b'), 'p');
  // A second process with member id 'a' is refused: it would resume a's checkpoint too.
  assert.throws(() => CheckpointLock.acquire(memberDir(root, 'a'), 'p'), LockedError);
  assert.equal(fs.existsSync(path.join(root, 'lock')), false);
  a.release();
  b.release();
});

test('a lock left by a process that is gone (same host) is broken; one held on another host is not', () => {
  const dir = tempDir('pipec-lock-');
  // A pid that surely does not run any more: a child that has exited and been reaped.
  const gone = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid!;
  fs.writeFileSync(path.join(dir, 'lock'), JSON.stringify({ pid: gone, host: hostname(), procStart: null, since: '2026-01-01T00:00:00.000Z', pipeline: 'p' }));
  const l = CheckpointLock.acquire(dir, 'p');
  assert.equal(lockOf(dir).pid, process.pid, 'taken over');
  l.release();

  fs.writeFileSync(path.join(dir, 'lock'), JSON.stringify({ pid: gone, host: 'elsewhere.example', procStart: null, since: '2026-01-01T00:00:00.000Z', pipeline: 'p' }));
  assert.throws(
    () => CheckpointLock.acquire(dir, 'p'),
    (e: Error) => e instanceof LockedError && e.message.includes(`in use by process ${gone} on host elsewhere.example`) && e.message.includes(`if it is gone, remove ${path.join(dir, 'lock')}`),
  );
  // A live process on this host (this one's parent) holds it: refused.
  fs.writeFileSync(path.join(dir, 'lock'), JSON.stringify({ pid: process.ppid, host: hostname(), procStart: null, since: '2026-01-01T00:00:00.000Z', pipeline: 'p' }));
  assert.throws(() => CheckpointLock.acquire(dir, 'p'), (e: Error) => e instanceof LockedError && e.message.includes(`in use by process ${process.ppid} on this host`));
  // The same pid, now another process (its start time differs from the one recorded): broken.
  fs.writeFileSync(path.join(dir, 'lock'), JSON.stringify({ pid: process.ppid, host: hostname(), procStart: 'not-its-start', since: '2026-01-01T00:00:00.000Z', pipeline: 'p' }));
  if (fs.existsSync(`/proc/${process.ppid}/stat`)) CheckpointLock.acquire(dir, 'p').release();
});

test('release leaves a lock that is no longer this run\'s alone', () => {
  const dir = tempDir('pipec-lock-');
  const l = CheckpointLock.acquire(dir, 'p');
  const other = JSON.stringify({ pid: process.ppid, host: hostname(), procStart: null, since: 'x', pipeline: 'p' });
  fs.writeFileSync(path.join(dir, 'lock'), other);
  l.release();
  assert.equal(fs.readFileSync(path.join(dir, 'lock'), 'utf8'), other);
});
