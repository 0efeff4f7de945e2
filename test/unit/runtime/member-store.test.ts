// The shared store of a scaled-out pipeline: which member's entry of a partition is the newest
// (the one a new holder continues from), and the member ids that may name a directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { checkMemberId, HandoverError, MemberStore, type TaskEntry } from '../../../targets/runtime/lib/member-store.ts';

const entry = (epoch: number, next: number | null, released: boolean): TaskEntry => ({ epoch, released, next, maxTs: 0, done: false, wm: 0, operators: {} });

function writeMember(root: string, member: string, tasks: Record<string, TaskEntry>): void {
  const dir = path.join(root, 'members', member);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'checkpoint.json'), JSON.stringify({ version: 1, pipeline: 'p', fingerprint: `fp-${member}`, seq: 1, finished: false, sources: {}, operators: {}, sinks: {}, deadLetters: null, late: {}, member, tasks }));
}

test('the newest entry of a partition: highest epoch first, then the furthest offset', () => {
  const root = tempDir('pipec-store-');
  const store = new MemberStore(root, 'c');
  assert.equal(store.latest('t-0'), null, 'no members yet');
  // The epoch counts hand-overs, so it decides before the offset does (here b's offset is made
  // lower than a's older entry on purpose, to tell the two rules apart).
  writeMember(root, 'a', { 't-0': entry(1, 500, true), 't-1': entry(3, 10, true) });
  writeMember(root, 'b', { 't-0': entry(2, 120, false), 't-1': entry(3, 40, false) });
  const t0 = store.latest('t-0')!;
  assert.equal(t0.member, 'b');
  assert.equal(t0.entry.epoch, 2);
  assert.equal(t0.fingerprint, 'fp-b');
  // Equal epochs (a holder that read nothing lost the race to record it): the further offset wins.
  assert.equal(store.latest('t-1')!.member, 'b');
  assert.equal(store.latest('t-1')!.entry.next, 40);
  assert.equal(store.latest('t-2'), null, 'a partition nobody held');
});

test('a member directory without a checkpoint is skipped; a torn file is an error naming it', () => {
  const root = tempDir('pipec-store-');
  fs.mkdirSync(path.join(root, 'members', 'x'), { recursive: true });
  writeMember(root, 'a', { 't-0': entry(1, 5, false) });
  const store = new MemberStore(root, 'a');
  assert.equal(store.latest('t-0')!.member, 'a');
  fs.writeFileSync(path.join(root, 'members', 'x', 'checkpoint.json'), '{"tasks": ');
  assert.throws(() => store.latest('t-0'), (e: Error) => e instanceof HandoverError && e.message.includes(path.join('members', 'x', 'checkpoint.json')));
});

test('member ids name directories: plain names only', () => {
  for (const ok of ['a', 'revenue-0', 'pod_1.zone-b']) assert.equal(checkMemberId(ok), ok);
  for (const bad of ['', '../x', 'a/b', '.hidden', 'with space', 'x'.repeat(129)]) {
    assert.throws(() => checkMemberId(bad), HandoverError, `refuses ${JSON.stringify(bad)}`);
  }
});
