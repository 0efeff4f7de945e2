// The names a sink's exactly-once / idempotence mechanism goes by, with and without a member id
// (scale-out). Without one (member null, a single process) every name and token must be what
// the code before scale-out produced — the pinned values below were computed by that code
// (commit bc8853d) — so existing checkpoints, Kafka markers and ClickHouse tokens stay valid.
// With one, members must differ from each other and from the single-process names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commitGroupOf, memberTransactionalId } from '../../../targets/runtime/lib/kafka/at-start.ts';
import { resolveKafkaSink } from '../../../targets/runtime/lib/config/kafka/config.ts';
import { rawOptions } from '../../support/resolved-config.ts';
import { batchToken } from '../../../targets/runtime/lib/clickhouse/clickhouse-sink.ts';
import { eosToken, type ClickHouseIntervalProgress } from '../../../targets/runtime/lib/clickhouse/exactly-once.ts';
import { committedSeq } from '../../../targets/runtime/lib/iceberg/progress.ts';
import type { TableMetadata } from '../../../targets/runtime/lib/iceberg/writer/metadata-json.ts';

test('kafka sink: member null keeps the transactional id and marker group; a member id is appended to the default and to a chosen id', () => {
  const names = (o: Record<string, string>, member?: string | null): [string, string] => {
    const tid = memberTransactionalId(resolveKafkaSink('alerts', rawOptions({ topic: 'out', delivery: 'exactly-once', ...o }), 'shop'), member);
    return [tid, commitGroupOf(tid)];
  };
  assert.deepEqual(names({}), ['pipec-shop-alerts', 'pipec-shop-alerts-commits']);
  assert.deepEqual(names({}, null), ['pipec-shop-alerts', 'pipec-shop-alerts-commits']);
  assert.deepEqual(names({}, 'm-2'), ['pipec-shop-alerts-m-2', 'pipec-shop-alerts-m-2-commits']);
  assert.deepEqual(names({ transactional_id: 'tx1' }, null), ['tx1', 'tx1-commits']);
  assert.deepEqual(names({ transactional_id: 'tx1' }, 'm-2'), ['tx1-m-2', 'tx1-m-2-commits']);
});

test('clickhouse tokens: member null gives the tokens of the code before scale-out; members differ from each other and from it', () => {
  const p: ClickHouseIntervalProgress = { delivery: 'exactly-once', run: 'run-1', seq: 4, file: 'f', rows: 2, batchSize: 1000, positions: '{"orders":{"offset":500}}' };
  const scope = { pipeline: 'shop', sink: 'out', table: 'default.t' };
  const eos = (member?: string | null): string => eosToken({ ...scope, member }, p, 1);
  assert.equal(eos(), 'pipec-0a45b20447bde855bea1f733f9cc358c75d654d9');
  assert.equal(eos(null), 'pipec-0a45b20447bde855bea1f733f9cc358c75d654d9');
  assert.equal(new Set([eos(null), eos('m0'), eos('m1')]).size, 3);
  assert.equal(eos('m0'), eos('m0'), 'a member replaying its interval keeps its tokens');

  const batch = { seq: 1, from: 'null', to: '{"o":2}', lines: ['{"id":1}', '{"id":2}'] };
  const alo = (member: string | null): string => batchToken(member, 'out', 'default.t', batch);
  assert.equal(alo(null), 'pipec-29b77924e3db591e3cb502c1472c3926c87977ab');
  assert.equal(new Set([alo(null), alo('m0'), alo('m1')]).size, 3);
});

/** Table metadata holding only snapshots with these summaries (committedSeq reads nothing else). */
function withSummaries(summaries: Record<string, string>[]): TableMetadata {
  return { snapshots: summaries.map((summary, i) => ({ 'snapshot-id': i + 1, summary: { operation: 'append', ...summary } })) } as unknown as TableMetadata;
}

test("iceberg recovery: a member counts only its own snapshots; a single process only snapshots without a member (all of a table's snapshots before scale-out)", () => {
  const snap = (seq: number, member?: string, sink = 'out'): Record<string, string> => ({
    'pipec.pipeline': 'shop', 'pipec.sink': sink, 'pipec.checkpoint-seq': String(seq), ...(member ? { 'pipec.member': member } : {}),
  });
  const meta = withSummaries([snap(3), snap(2, 'm0'), snap(9, 'm1'), snap(7), snap(40, 'm0', 'other')]);
  assert.equal(committedSeq(meta, 'shop', 'out'), 7);
  assert.equal(committedSeq(meta, 'shop', 'out', null), 7);
  assert.equal(committedSeq(meta, 'shop', 'out', 'm0'), 2, "m1's seq 9 is not m0's");
  assert.equal(committedSeq(meta, 'shop', 'out', 'm1'), 9);
  assert.equal(committedSeq(meta, 'shop', 'out', 'm2'), 0);
});
