// `pipec run` on a real terminal (issue 13.5), read off a tmux screen: the live status line is
// drawn, table rows never run into it, a watermark no Date can hold does not kill the pipeline,
// and the last line is the run's totals, not rates. Needs the built CLI and tmux.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PIPEC } from './run-cli.ts';
import { hasTmux, TmuxPane } from './tty.ts';

// A real terminal is part of what is tested: without tmux the tests fail, they never skip (.ci/run installs it).
function needTmux(): void {
  assert.ok(hasTmux(), 'tmux is not installed (apt-get install tmux; .ci/run installs it)');
}
const STATUS = /^in [\d.]+[kM]?\/s {2}out /;
const ROW = /^\| [xyz] +\| \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \| \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \| +(\d+) \|$/;

function dir(files: Record<string, string>): string {
  const d = mkdtempSync(path.join(tmpdir(), 'pipec-tty-'));
  for (const [f, text] of Object.entries(files)) writeFileSync(path.join(d, f), text);
  return d;
}

test('table rows and the status line share the terminal without running into each other; the end shows totals', async () => {
  needTmux();
  // 6,000 rows at 2,000 rows/s with event time following the clock: three seconds of 1 s
  // windows, three keys, so rows arrive while the status line is up.
  const d = dir({
    'tty.pipe.sql': `PIPELINE ttydemo;
CREATE SOURCE ev (k STRING NOT NULL, ts TIMESTAMP(3) NOT NULL, WATERMARK FOR ts AS ts - INTERVAL '0' SECOND)
WITH (connector = 'datagen', total_rows = 6000, rows_per_second = 2000, seed = 1,
  fields.k.kind = 'choice', fields.k.values = 'x,y,z', fields.ts.kind = 'sequence', fields.ts.min = '2024-01-01 00:00:00');
-- pipec:allow hot-partition-group-key
CREATE VIEW per_sec AS SELECT k, window_start, window_end, COUNT(*) AS n
FROM TUMBLE(ev, ts, INTERVAL '1' SECOND) GROUP BY k, window_start, window_end
EMIT ON WINDOW CLOSE ON LATE DROP;
CREATE SINK console FROM per_sec WITH (connector = 'stdout', format = 'table');
`,
  });
  const pane = new TmuxPane([process.execPath, PIPEC, 'run', 'tty.pipe.sql'], d);
  try {
    // The live line shows up at least once while rows are being written.
    await pane.waitFor((s) => s.some((l) => STATUS.test(l)), 60_000, 'the live status line');
    assert.equal(await pane.waitExit(60_000), 0, pane.screen().join('\n'));
    const screen = pane.screen();
    const body = screen.filter((l) => l !== '');
    const last = body[body.length - 1]!;
    assert.match(last, /^finished after [\d.]+ s: in 6000 records {2}out \d+ rows {2}late 0 {2}dead 0 {2}checkpoints \d+ {2}wm \[ev end\]$/);
    assert.doesNotMatch(last, /\/s/, 'totals, not rates');
    // Every other line is part of the table: nothing glued to a status line.
    let total = 0;
    for (const l of body.slice(0, -1)) {
      if (/^\+[-+]+\+$/.test(l) || /^\| k +\| window_start +\| window_end +\| n +\|$/.test(l)) continue;
      const m = ROW.exec(l);
      assert.ok(m, `not a table line: ${JSON.stringify(l)}\n${screen.join('\n')}`);
      total += Number(m[1]);
    }
    assert.equal(total, 6000, 'the windows count every generated row once');
  } finally {
    pane.close();
  }
});

test('a record no Date can hold (1e17 ms) is a dead letter, not a dead pipeline; Ctrl-C stops it with totals', async () => {
  needTmux();
  const d = dir({
    'range.pipe.sql': `PIPELINE ttyrange;
CREATE SOURCE ev (id BIGINT NOT NULL, ts TIMESTAMP(3) NOT NULL, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH (connector = 'file', path = 'in.ndjson', format = 'ndjson', follow = 'true');
CREATE SINK out FROM ev WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');
`,
    'in.ndjson': '{"id":1,"ts":"2024-01-01 00:00:00"}\n{"id":2,"ts":1e17}\n',
  });
  const pane = new TmuxPane([process.execPath, PIPEC, 'run', 'range.pipe.sql'], d);
  try {
    // Once, the 1e17 record moved the watermark out of Date's range and the first status line threw
    // `RangeError: Invalid time value`. It is out of TIMESTAMP's range, so it is a dead letter; the
    // formatter's own guard (a `?` for such a time) is unit-tested in status-line.test.ts.
    const s = await pane.waitFor((x) => x.some((l) => STATUS.test(l) && l.includes('dead 1') && l.includes('wm [ev 2023-12-31 23:59:59]')), 60_000, 'a status line with the dead letter counted');
    assert.ok(!s.some((l) => /RangeError|failed/.test(l)), s.join('\n'));
    // Two more seconds of status lines: still running.
    await new Promise((r) => setTimeout(r, 2000));
    assert.equal(pane.exitCode(), null, pane.screen().join('\n'));
    pane.keys('C-c');
    const code = await pane.waitExit(30_000);
    const screen = pane.screen().filter((l) => l !== '');
    assert.match(screen[screen.length - 1]!, /^stopped after [\d.]+ s: in \d+ records {2}out 1 rows? {2}late 0 {2}dead 1 {2}checkpoints \d+ {2}wm \[ev 2023-12-31 23:59:59\]$/, screen.join('\n'));
    assert.equal(code, 130, 'Ctrl-C ends the run with 130');
  } finally {
    pane.close();
  }
});
