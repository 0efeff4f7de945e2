// The terminal status line (issue 13.5): formatting never throws (NULL, NaN, out-of-range and
// infinite watermarks), a failing renderer or terminal never reaches the pipeline, other output
// clears the line before it is written and redraws it after, and the end leaves totals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatTime, StatusRenderer, summaryLine } from '../../../targets/runtime/lib/status-line.ts';
import { statusLine, type Metrics } from '../../../targets/runtime/lib/metrics.ts';

function metrics(watermarks: [string, number][]): Metrics {
  return {
    pipeline: 'p',
    startedAt: 1_000,
    recordsIn: () => new Map([['a', 1200], ['b', 34]]),
    deadLetters: () => new Map([['a', 2]]),
    watermarks: new Map(watermarks),
    late: new Map([['w', 5]]),
    recordsOut: () => new Map([['out', 40]]),
    stateSize: () => new Map(),
    ignoredRetractions: () => new Map(),
    lag: () => new Map(),
    gauges: () => new Map(),
    checkpoints: 3,
    lastCheckpointAt: null,
    lastCheckpointMs: 0,
    lastCheckpointBytes: 0,
  };
}

test('formatTime: ordinary, infinite, NULL, NaN and out-of-range times', () => {
  assert.equal(formatTime(Date.UTC(2024, 0, 1, 12, 0, 5, 250)), '2024-01-01 12:00:05');
  assert.equal(formatTime(Number.POSITIVE_INFINITY), 'end');
  assert.equal(formatTime(Number.NEGATIVE_INFINITY), '-');
  assert.equal(formatTime(null), '-');
  assert.equal(formatTime(Number.NaN), '?');
  // 1e17 ms is beyond what a Date holds: `new Date(1e17).toISOString()` throws RangeError.
  assert.throws(() => new Date(1e17).toISOString(), RangeError);
  assert.equal(formatTime(1e17), '?');
  assert.equal(formatTime(-1e17), '?');
  // The largest Date (year 275760) still shows, with its extended year.
  assert.equal(formatTime(8.64e15), '+275760-09-13 00:00:00');
});

test('the live line and the summary render with watermarks no Date can hold', () => {
  const m = metrics([['a', 1e17], ['b', Number.NaN], ['c', Number.POSITIVE_INFINITY]]);
  const s = statusLine(m, 0, 0, 1000, 5_000);
  assert.match(s.text, /wm \[a \?, b \?, c end\]/);
  const sum = summaryLine(m, 13_500, 'stopped');
  assert.equal(sum, 'stopped after 12.5 s: in 1234 records  out 40 rows  late 5  dead 2  checkpoints 3  wm [a ?, b ?, c end]');
  assert.doesNotMatch(sum, /\/s/, 'totals, not rates');
});

test('the renderer swallows a throwing render and a failing terminal', () => {
  const written: string[] = [];
  const r = new StatusRenderer((t) => void written.push(t), true);
  r.draw(() => {
    throw new RangeError('Invalid time value');
  });
  assert.deepEqual(written, ['\r\x1b[K']);
  const broken = new StatusRenderer(() => {
    throw Object.assign(new Error('write EIO'), { code: 'EIO' });
  }, true);
  broken.draw(() => 'in 1/s');
  broken.finish(() => 'done');
});

test('rows and messages clear the status line before they are written and redraw it after', () => {
  let screen = '';
  const term = (t: string): void => void (screen += t);
  const r = new StatusRenderer(term, true);
  const out = r.around(term);
  out('| header |\n'); // no line shown yet: written as is
  r.draw(() => 'in 5/s');
  out('| row 1 |\n');
  r.draw(() => 'in 7/s');
  out('| row 2 |\n');
  r.finish(() => 'finished: in 12 records');
  assert.equal(
    screen,
    '| header |\n' + '\r\x1b[Kin 5/s' + '\r\x1b[K| row 1 |\n\r\x1b[Kin 5/s' + '\r\x1b[Kin 7/s' + '\r\x1b[K| row 2 |\n\r\x1b[Kin 7/s' + '\r\x1b[Kfinished: in 12 records\n',
  );
  // Off a terminal nothing is added.
  let plain = '';
  const off = new StatusRenderer((t) => void (plain += t), false);
  off.around((t) => void (plain += t))('row\n');
  off.draw(() => 'in 5/s');
  off.finish(() => 'x');
  assert.equal(plain, 'row\n');
});
