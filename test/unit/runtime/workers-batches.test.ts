// What crosses between threads in a `--workers N` run, in bulk: rows packed as numbers for the
// exchange (packed-rows.ts) must come back as the very rows sent, and a batch that cannot be
// packed must be refused (it is then sent as it is); sink lines a worker encodes (line-batch.ts)
// must reach the main thread as each sink's UTF-8 lines in order, whether through the shared ring
// or, when the main thread lags or the lines outgrow a slot, in buffers of their own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { packRows, unpackRows } from '../../../targets/runtime/lib/workers/packed-rows.ts';
import { LineBatches, OUT_SLOTS, SLOT_BYTES, type LineSegment } from '../../../targets/runtime/lib/workers/line-batch.ts';
import { setRowKind, type Row } from '../../../targets/runtime/lib/ops/types.ts';

const roundTrip = (rows: Row[]): Row[] => {
  const packed = packRows(rows);
  assert.ok(packed, 'packed');
  // Through a real structured clone with the buffer moved, as the exchange posts it.
  const moved = structuredClone(packed, { transfer: [packed.values.buffer] });
  const back: Row[] = [];
  unpackRows(moved, (r) => back.push(r));
  return back;
};

test('numeric rows come back exactly, -0, NaN, fractions and 2^53 - 1 included', () => {
  const rows: Row[] = [
    [1, 1767225600000, Number.MAX_SAFE_INTEGER],
    [-0, Number.NaN, 0.1 + 0.2],
    [-Number.MAX_SAFE_INTEGER, 1e308, Number.POSITIVE_INFINITY],
  ];
  const back = roundTrip(rows);
  assert.equal(back.length, 3);
  back.forEach((r, i) => r.forEach((v, j) => assert.ok(Object.is(v, rows[i]![j]), `row ${i} column ${j}: ${String(v)}`)));
  assert.ok(back.every((r) => Array.isArray(r) && (r as Row & { kind?: string }).kind === undefined));
});

test('a batch with anything but plain numeric rows of one width is not packed', () => {
  const plain = (): Row => [1, 2];
  for (const [what, odd] of [
    ['a string', [1, 'x']],
    ['a NULL', [1, null]],
    ['a BIGINT beyond 2^53', [1, 2n ** 60n]],
    ['another width', [1, 2, 3]],
    ['a changelog kind', setRowKind([1, 2], '-D')],
  ] as [string, Row][]) {
    assert.equal(packRows([plain(), odd, plain()]), null, what);
  }
  assert.ok(packRows([plain(), setRowKind([1, 2], '+I')]), "'+I' is no kind at all: the row is plain");
});

/** A worker's lines for 2 sinks through LineBatches and a main thread that takes each message in turn (or lags). */
function throughRing(lines: [string, string][], mainLags: (message: number) => boolean) {
  const ring = new SharedArrayBuffer(OUT_SLOTS * SLOT_BYTES);
  let sent = 0;
  let taken = 0;
  const behind: { lines: LineSegment[]; moved: ArrayBuffer[] }[] = [];
  const written = new Map<string, { text: string; rows: number }>();
  let owned = 0;
  const mainTakes = (m: { lines: LineSegment[]; moved: ArrayBuffer[] }): void => {
    for (const [id, bytes, rows] of m.lines) {
      const w = written.get(id) ?? { text: '', rows: 0 };
      w.text += Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
      w.rows += rows;
      written.set(id, w);
    }
    owned += m.moved.length;
    taken++;
  };
  const batches = new LineBatches(ring, () => sent, () => sent - taken < OUT_SLOTS);
  const send = (): void => {
    const m = batches.take();
    // Through a real structured clone, as postMessage makes it: ring views stay views of the shared bytes.
    behind.push(structuredClone(m, { transfer: m.moved }));
    sent++;
    if (!mainLags(sent)) while (behind.length) mainTakes(behind.shift()!);
  };
  let rows = 0;
  for (const [id, l] of lines) {
    if (batches.add(id, l) || ++rows % 4096 === 0) send();
  }
  send();
  while (behind.length) mainTakes(behind.shift()!);
  return { written, sent, owned };
}

const someLines = (n: number, width: (i: number) => number): [string, string][] =>
  Array.from({ length: n }, (_, i) => [i % 3 === 0 ? 'b' : 'a', `{"i":${i},"s":"${i % 7 === 0 ? 'é€😀' : 'x'.repeat(width(i))}"}`]);

const expect = (lines: [string, string][], id: string) => {
  const mine = lines.filter(([s]) => s === id).map(([, l]) => l + '\n');
  return { text: mine.join(''), rows: mine.length };
};

test('lines through the ring are each sink\'s UTF-8 in order with their row counts, 2-, 3- and 4-byte characters included', () => {
  const lines = someLines(60_000, (i) => i % 200);
  const { written, sent } = throughRing(lines, () => false);
  assert.deepEqual(written.get('a'), expect(lines, 'a'));
  assert.deepEqual(written.get('b'), expect(lines, 'b'));
  assert.ok(sent > OUT_SLOTS, `every slot reused (${sent} messages)`);
});

test('a message whose slot is still unread, or that outgrows its slot, goes in buffers of its own, nothing lost', () => {
  // The main thread takes nothing until 12 messages wait: messages 8–11 find their slot in use.
  const lagging = someLines(40_000, (i) => i % 50);
  const late = throughRing(lagging, (m) => m % 12 !== 0);
  assert.deepEqual(late.written.get('a'), expect(lagging, 'a'));
  assert.deepEqual(late.written.get('b'), expect(lagging, 'b'));
  assert.ok(late.owned > 0, 'some lines went in buffers of their own');
  // Lines of ~1 KiB: 4,096 of them are 4 MiB, past a slot; the slot says it is full and the message goes early.
  const long = someLines(20_000, () => 1000);
  const big = throughRing(long, () => false);
  assert.deepEqual(big.written.get('a'), expect(long, 'a'));
  assert.deepEqual(big.written.get('b'), expect(long, 'b'));
  assert.ok(big.sent >= Math.floor((20_000 * 1010) / SLOT_BYTES), `sent when the slot filled (${big.sent} messages)`);
});
