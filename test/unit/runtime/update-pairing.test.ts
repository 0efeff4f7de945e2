// Pairing of '-U' rows for the keyed sinks (io/update-pairing.ts): a '-U' followed by the '+U'
// of its key is an update, any other '-U' deletes its key — the case a filter after a GROUP BY
// (HAVING) leaves when a group stops passing it. Also the ClickHouse sink's use of it, against a
// transport that records the inserted lines: the unfollowed '-U' lands as an `_is_deleted = 1`
// version, and before the checkpoint's progress.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { UpdatePairing, sameKey } from '../../../targets/runtime/lib/io/update-pairing.ts';
import { setRowKind, type Row, type RowKind } from '../../../targets/runtime/lib/ops/types.ts';
import { ClickHouseSink } from '../../../targets/runtime/lib/clickhouse/clickhouse-sink.ts';
import { changelogSink, type SinkDef } from '../../../targets/runtime/lib/io/sinks.ts';
import type { ChColumn } from '../../../targets/runtime/lib/clickhouse/encode.ts';
import type { ChTransport } from '../../../targets/runtime/lib/clickhouse/transport.ts';
import { sinkConfigOf } from '../../support/resolved-config.ts';

const r = (kind: RowKind, k: unknown, n: number): Row => setRowKind([k, n], kind);

/** Feeds rows through a pairing keyed by column 0; returns what came out, as `action kind k n`. */
function pair(rows: Row[], opts: { release?: boolean; keyIdx?: number[] | null } = {}): string[] {
  const out: string[] = [];
  const p = new UpdatePairing(opts.keyIdx === undefined ? [0] : opts.keyIdx, (row, action) => out.push(`${action} ${(row as Row & { kind?: string }).kind ?? '+I'} ${String(row[0])} ${row[1]}`));
  for (const row of rows) p.push(row);
  if (opts.release) p.release();
  return out;
}

test("-U then +U of the same key: one upsert of the +U (the -U is not written)", () => {
  assert.deepEqual(pair([r('+I', 'a', 1), r('-U', 'a', 1), r('+U', 'a', 2)]), ['upsert +I a 1', 'upsert +U a 2']);
});

test('-U then +U of another key: the -U deletes its key, the +U is upserted', () => {
  // HAVING COUNT(*) < 3: a's '+U' (count 3) was filtered out; b's update follows.
  assert.deepEqual(pair([r('-U', 'a', 2), r('+U', 'b', 2)]), ['delete -U a 2', 'upsert +U b 2']);
});

test('-U then -D: both delete, in order', () => {
  assert.deepEqual(pair([r('-U', 'a', 2), r('-D', 'b', 1)]), ['delete -U a 2', 'delete -D b 1']);
  // The same key: two deletes of it (the second is harmless), never an upsert of the old row.
  assert.deepEqual(pair([r('-U', 'a', 2), r('-D', 'a', 2)]), ['delete -U a 2', 'delete -D a 2']);
});

test('-U then -U: the first deletes its key, the second waits for its +U', () => {
  assert.deepEqual(pair([r('-U', 'a', 2), r('-U', 'b', 1), r('+U', 'b', 2)]), ['delete -U a 2', 'upsert +U b 2']);
});

test('-U then +I: the -U deletes its key (an insert is not its update)', () => {
  assert.deepEqual(pair([r('-U', 'a', 2), r('+I', 'a', 1)]), ['delete -U a 2', 'upsert +I a 1']);
});

test('-U at flush: nothing until release, then a delete; release with nothing held does nothing', () => {
  assert.deepEqual(pair([r('+I', 'a', 1), r('-U', 'a', 1)]), ['upsert +I a 1']);
  assert.deepEqual(pair([r('+I', 'a', 1), r('-U', 'a', 1)], { release: true }), ['upsert +I a 1', 'delete -U a 1']);
  assert.deepEqual(pair([r('+I', 'a', 1)], { release: true }), ['upsert +I a 1']);
  const p = new UpdatePairing([0], () => assert.fail('nothing to write'));
  p.push(r('-U', 'a', 1));
  assert.equal(p.holding, true);
  p.discard();
  assert.equal(p.holding, false);
  p.release();
});

test('rows without a kind (append) and +I / +U / -D pass straight through', () => {
  assert.deepEqual(pair([['x', 1], r('+U', 'y', 2), r('-D', 'z', 3)]), ['upsert +I x 1', 'upsert +U y 2', 'delete -D z 3']);
});

test('keys compare by value: BIGINT beyond 2^53, several columns, composite values', () => {
  assert.equal(sameKey([2n ** 60n, 'x'], [2n ** 60n, 'x'], [0, 1]), true);
  assert.equal(sameKey([2n ** 60n, 'x'], [2n ** 60n, 'y'], [0, 1]), false);
  assert.equal(sameKey([null], [null], [0]), true);
  assert.equal(sameKey([null], [0], [0]), false);
  assert.equal(sameKey([[1, 2]], [[1, 2]], [0]), true);
  assert.equal(sameKey([[1, 2]], [[1, 3]], [0]), false);
  assert.equal(sameKey([new Map([['a', 1]])], [new Map([['a', 1]])], [0]), true);
  assert.equal(sameKey([new Map([['a', 1]])], [new Map([['a', 2]])], [0]), false);
  // Only the key columns count.
  assert.equal(sameKey(['a', 1], ['a', 2], [0]), true);
  assert.deepEqual(pair([r('-U', 2n ** 60n, 1), r('+U', 2n ** 60n, 2)]), [`upsert +U ${2n ** 60n} 2`]);
});

test('no known key: a -U directly followed by any +U is its update', () => {
  assert.deepEqual(pair([r('-U', 'a', 1), r('+U', 'a', 2)], { keyIdx: null }), ['upsert +U a 2']);
  assert.deepEqual(pair([r('-U', 'a', 1), r('-D', 'a', 1)], { keyIdx: null }), ['delete -U a 1', 'delete -D a 1']);
});

/** Records the inserted lines; the table's columns are given. */
class Recording implements ChTransport {
  readonly lines: string[] = [];
  constructor(private readonly cols: ChColumn[]) {}
  version = async (): Promise<string> => '26.9.0';
  hasSetting = async (): Promise<boolean> => false;
  columns = async (): Promise<ChColumn[]> => this.cols;
  tableDefinition = async (): Promise<null> => null;
  mergeTreeSettings = async (): Promise<Record<string, string>> => ({});
  insert = async (_db: string, _t: string, lines: readonly string[]): Promise<void> => void this.lines.push(...lines);
  close = async (): Promise<void> => {};
}

function chSink(cols: ChColumn[]): { sink: ClickHouseSink; tr: Recording } {
  const def: SinkDef = {
    id: 'out',
    name: 'out',
    connector: 'clickhouse',
    options: { url: 'http://127.0.0.1:1', table: 'default.t', dedup: 'off' },
    config: sinkConfigOf('clickhouse', 'out', { url: 'http://127.0.0.1:1', table: 'default.t', dedup: 'off' }),
    columns: [
      { name: 'k', kind: 'STRING', nullable: false },
      { name: 'n', kind: 'BIGINT', nullable: false },
    ],
    json: () => '',
    cells: () => [],
  };
  const tr = new Recording(cols);
  const sink = new ClickHouseSink(def, { env: {}, transport: tr });
  changelogSink(sink, 'upsert', ['k']);
  return { sink, tr };
}

const flagged = (l: string): [string, number, number] => {
  const o = JSON.parse(l) as { k: string; n: number; _version: number; _is_deleted: number };
  assert.ok(o._version > 0);
  return [o.k, o.n, o._is_deleted];
};

test('ClickHouse sink: an unfollowed -U is an _is_deleted = 1 version, written by commit() before it returns', async () => {
  const { sink, tr } = chSink([
    { name: 'k', type: 'String' },
    { name: 'n', type: 'Int64' },
    { name: '_version', type: 'UInt64' },
    { name: '_is_deleted', type: 'UInt8' },
  ]);
  sink.open(null);
  sink.write(r('+I', 'a', 1));
  sink.write(r('+I', 'b', 1));
  sink.write(r('-U', 'a', 1));
  sink.write(r('+U', 'a', 2));
  sink.write(r('-U', 'a', 2)); // a's +U (3) filtered out: a leaves the result
  sink.write(r('-U', 'b', 1));
  sink.write(r('+U', 'b', 2));
  sink.write(r('-U', 'b', 2)); // held at the checkpoint
  assert.equal(sink.pendingRows(), 6);
  const progress = (await sink.commit()) as { version: number };
  assert.deepEqual(tr.lines.map(flagged), [
    ['a', 1, 0],
    ['b', 1, 0],
    ['a', 2, 0],
    ['a', 2, 1],
    ['b', 2, 0],
    ['b', 2, 1],
  ]);
  const versions = tr.lines.map((l) => (JSON.parse(l) as { _version: number })._version);
  assert.deepEqual([...versions].sort((x, y) => x - y), versions, 'versions grow in row order');
  assert.equal(progress.version, versions.at(-1), 'the checkpoint records the held row’s version');
  await sink.close();
});

test('ClickHouse sink: flush() turns a held -U into a delete; without _is_deleted it fails as a -D does', async () => {
  const withFlag = chSink([
    { name: 'k', type: 'String' },
    { name: 'n', type: 'Int64' },
    { name: '_version', type: 'UInt64' },
    { name: '_is_deleted', type: 'UInt8' },
  ]);
  withFlag.sink.open(null);
  withFlag.sink.write(r('-U', 'a', 2));
  withFlag.sink.flush();
  assert.equal(withFlag.sink.pendingRows(), 1);
  await withFlag.sink.close();
  assert.deepEqual(withFlag.tr.lines.map(flagged), [['a', 2, 1]]);

  const plain = chSink([
    { name: 'k', type: 'String' },
    { name: 'n', type: 'Int64' },
    { name: '_version', type: 'UInt64' },
  ]);
  plain.sink.open(null);
  plain.sink.write(r('-U', 'a', 1));
  plain.sink.write(r('+U', 'a', 2)); // an update is fine without the flag
  plain.sink.write(r('-U', 'a', 2));
  await assert.rejects(plain.sink.commit(), /a delete arrived .* has no _is_deleted UInt8 column/);
  const direct = chSink([
    { name: 'k', type: 'String' },
    { name: 'n', type: 'Int64' },
    { name: '_version', type: 'UInt64' },
  ]);
  direct.sink.open(null);
  direct.sink.write(r('-D', 'a', 1));
  await assert.rejects(direct.sink.commit(), /a delete arrived .* has no _is_deleted UInt8 column/);
});
