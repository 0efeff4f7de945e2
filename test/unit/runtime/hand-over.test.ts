// The hand-over protocol of scaled-out members, driven step by step without Kafka: two members
// on one store, a fake source reporting lost and won partitions, and a counting operator whose
// state must arrive whole at the new holder. Covers the orderings the crash test found or that
// only a rare schedule reaches: release before take, the position set before the checkpoint
// that holds a partition, the timeout for a holder that never releases, a foreign plan version.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';
import { HandOver, HANDOVER_TIMEOUT_MS, type TaskSource } from '../../../targets/runtime/lib/hand-over.ts';
import { HandoverError, memberDir, MemberStore } from '../../../targets/runtime/lib/member-store.ts';
import { writeCheckpoint } from '../../../targets/runtime/lib/checkpoint.ts';
import { SourceClock } from '../../../targets/runtime/lib/watermarks.ts';
import type { Row, StatefulOp } from '../../../targets/runtime/lib/ops/types.ts';
import type { PipelineDef } from '../../../targets/runtime/lib/pipeline-types.ts';
import type { StateFingerprints } from '../../../targets/runtime/lib/shared/state-compat.ts';
import type { RunningSource, SourceDef } from '../../../targets/runtime/lib/io/source-types.ts';

/** Counts the rows it saw; its state is that count. */
class CountOp implements StatefulOp {
  readonly id = 'count';
  n = 0;
  advance(): void {}
  snapshot(): unknown {
    return { n: this.n };
  }
  restore(s: unknown): void {
    this.n = (s as { n: number }).n;
  }
  stateSize(): number {
    return 1;
  }
}

const NO_STATE: StateFingerprints = { sources: {}, operators: {}, sinks: {} };
const def = (fingerprint: string, state = NO_STATE): PipelineDef => ({ name: 'p', fingerprint, state, checkpointIntervalMs: 1000, options: { scale_out: 'partitions' }, scaleOut: 'partitions', sources: [], sinks: [], instantiate: () => ({ emit: {}, graph: [], late: {} }) });

/** One member: a fake source of two partitions, a clock the test moves, a log of what happened in what order. */
/** `state`: the build's state fingerprints, written into its checkpoints (format 3); without, format 2 (whole-plan fingerprint only). */
function member(root: string, id: string, fingerprint = 'fp', state?: StateFingerprints) {
  const log: string[] = [];
  const positions = new Map<number, number | null>();
  let change: { revoked: number[]; added: number[] } | null = null;
  let t = 1_000_000;
  const sdef = { id: 's', name: 's', timeIndex: -1, columns: [] } as unknown as SourceDef;
  const src = {
    def: sdef,
    takeAssignmentChange: () => {
      const c = change;
      change = null;
      return c;
    },
    startPartition: async (p: number, next: number | null) => {
      log.push(`start ${p} at ${next}`);
      positions.set(p, next);
    },
    partitionPosition: (p: number) => positions.get(p) ?? null,
  } as unknown as RunningSource;
  const clock = new SourceClock(0, null);
  const source: TaskSource = { id: 's', src, parts: [clock.partition('t-0', 0), clock.partition('t-1', 0)], clock, timed: false };
  const counters: CountOp[] = [];
  const warnings: string[] = [];
  const h: HandOver = new HandOver({
    def: def(fingerprint, state),
    member: id,
    store: new MemberStore(root, id),
    source,
    instantiate: (ops) => {
      const op = new CountOp();
      ops.push(op);
      counters.push(op);
      return { emit: { s: () => void op.n++ }, graph: [{ id: 'scan', inputs: [], source: 's' }, { id: 'count', inputs: ['scan'], node: op }], late: {} };
    },
    countLate: () => {},
    now: () => t,
    batchNow: () => t,
    warn: (m) => warnings.push(m),
    dead: () => assert.fail('no dead letters here'),
    checkpoint: async () => {
      const tasks = h.entries(false);
      log.push(`checkpoint ${Object.entries(tasks).map(([p, e]) => `${p}:e${e.epoch}${e.released ? 'r' : ''}@${e.next}`).sort().join(' ')}`);
      writeCheckpoint(memberDir(root, id), { version: 1, pipeline: 'p', fingerprint, ...(state ? { state } : {}), seq: log.length, finished: false, sources: {}, operators: {}, sinks: {}, deadLetters: null, late: {}, member: id, tasks });
    },
  });
  return {
    h,
    log,
    warnings,
    positions,
    counters,
    change: (c: { revoked?: number[]; added?: number[] }) => (change = { revoked: c.revoked ?? [], added: c.added ?? [] }),
    /** Moves this member's clock past the hand-over's 100 ms look interval (or further). */
    later: (ms = 150) => (t += ms),
    rows: (p: number, n: number) => {
      for (let i = 0; i < n; i++) h.row(p, [] as Row);
      positions.set(p, (positions.get(p) ?? 0) + n);
    },
    count: (p: number) => h.live().find((x) => x.index === p)?.ops[0] as CountOp | undefined,
  };
}

test('a partition moves with its state: released by the holder, taken by the new member at the released position', async () => {
  const root = tempDir('pipec-handover-');
  const a = member(root, 'a');
  const b = member(root, 'b');

  // a wins both partitions; nobody held them: a starts them as a first start would, sets the
  // positions before the checkpoint that holds them.
  a.change({ added: [0, 1] });
  await a.h.handOver();
  assert.deepEqual(a.log, ['start 0 at null', 'start 1 at null', 'checkpoint t-0:e1@null t-1:e1@null']);
  a.positions.set(0, 0);
  a.positions.set(1, 0);
  a.rows(0, 3);
  a.rows(1, 5);

  // b joins and wins partition 0 while a still holds it: b waits, reads nothing.
  b.change({ added: [0] });
  await b.h.handOver();
  assert.deepEqual(b.log, []);
  assert.equal(b.h.live().length, 0);

  // a loses partition 0: released at once, with its state and position.
  a.change({ revoked: [0] });
  await a.h.handOver();
  assert.equal(a.log.at(-1), 'checkpoint t-0:e1r@3 t-1:e1@5');
  assert.deepEqual(a.h.live().map((t) => t.index), [1]);

  // b looks again: takes a's state (3 rows) at offset 3, epoch 2.
  b.later();
  await b.h.handOver();
  assert.deepEqual(b.log, ['start 0 at 3', 'checkpoint t-0:e2@3']);
  assert.equal(b.count(0)!.n, 3);
  b.rows(0, 2);
  assert.equal(b.count(0)!.n, 5);
  assert.equal(b.warnings.length, 0);

  // a wins partition 0 back (and b loses it in the same rebalance): b releases at 5, a takes epoch 3.
  b.change({ revoked: [0] });
  await b.h.handOver();
  a.change({ added: [0] });
  a.later();
  await a.h.handOver();
  assert.equal(a.log.at(-2), 'start 0 at 5');
  assert.equal(a.count(0)!.n, 5);
  assert.match(a.log.at(-1)!, /^checkpoint t-0:e3@5 t-1:e1@5$/);
});

test('a partition lost and won again in one rebalance is released and taken back at its position', async () => {
  const root = tempDir('pipec-handover-');
  const a = member(root, 'a');
  a.change({ added: [0] });
  await a.h.handOver();
  a.positions.set(0, 10);
  a.rows(0, 4);
  a.change({ revoked: [0], added: [0] });
  a.later();
  await a.h.handOver();
  assert.deepEqual(a.log.slice(-3), ['checkpoint t-0:e1r@14', 'start 0 at 14', 'checkpoint t-0:e2@14']);
  assert.equal(a.count(0)!.n, 4);
});

test('a holder that never releases is waited for up to the hand-over timeout, then taken from its last checkpoint with a warning', async () => {
  const root = tempDir('pipec-handover-');
  const a = member(root, 'a');
  const b = member(root, 'b');
  a.change({ added: [1] });
  await a.h.handOver();
  a.positions.set(1, 0);
  a.rows(1, 7);
  // The runner's periodic checkpoint records 7 rows at offset 7; then a dies (never releases).
  writeCheckpoint(memberDir(root, 'a'), { version: 1, pipeline: 'p', fingerprint: 'fp', seq: 9, finished: false, sources: {}, operators: {}, sinks: {}, deadLetters: null, late: {}, member: 'a', tasks: a.h.entries(false) });

  b.change({ added: [1] });
  await b.h.handOver();
  b.later(HANDOVER_TIMEOUT_MS - 1000);
  await b.h.handOver();
  assert.equal(b.h.live().length, 0, 'still waiting before the timeout');
  b.later(2000);
  await b.h.handOver();
  assert.equal(b.count(1)!.n, 7);
  assert.deepEqual(b.log, ['start 1 at 7', 'checkpoint t-1:e2@7']);
  assert.equal(b.warnings.length, 1);
  assert.match(b.warnings[0]!, /member 'a' did not release partition t-1 within 15 s/);
});

test("a partition whose newest state another version of the pipeline wrote is refused, naming the member", async () => {
  const root = tempDir('pipec-handover-');
  const old = member(root, 'old', 'fp-old');
  old.change({ added: [0] });
  await old.h.handOver();
  old.change({ revoked: [0] });
  await old.h.handOver();
  const b = member(root, 'b', 'fp-new');
  b.change({ added: [0] });
  await assert.rejects(b.h.handOver(), (e: Error) => e instanceof HandoverError && /checkpointed by member 'old' running a different version of pipeline 'p'/.test(e.message));
});

test('format 3: a partition moves to a member of another build when its source and operator fingerprints match, and is refused when one differs', async () => {
  const fps = (count: string, sink: string): StateFingerprints => ({ sources: { s: 'src-1' }, operators: { count }, sinks: { out: sink } });
  const root = tempDir('pipec-handover-');
  const old = member(root, 'old', 'fp-old', fps('count-1', 'sink-1'));
  old.change({ added: [0] });
  await old.h.handOver();
  old.change({ revoked: [0] });
  await old.h.handOver();
  // Only a sink differs (a filter or projection change changes the whole-plan fingerprint, not these): taken.
  const b = member(root, 'b', 'fp-new', fps('count-1', 'sink-2'));
  b.change({ added: [0] });
  await b.h.handOver();
  assert.ok(b.log.some((l) => l.startsWith('start 0')), b.log.join('\n'));
  b.change({ revoked: [0] });
  await b.h.handOver();
  // The operator's state layout differs: refused.
  const c = member(root, 'c', 'fp-newer', fps('count-2', 'sink-2'));
  c.change({ added: [0] });
  await assert.rejects(c.h.handOver(), (e: Error) => e instanceof HandoverError && /checkpointed by member 'b' running a different version of pipeline 'p'/.test(e.message));
});
