// Issue 13 item 2, end to end through the built CLI: a followed file spec runs with checkpoints
// and is stopped; its sink's filter changes; `pipec diff` says compatible and `pipec run`
// resumes from the checkpoint, neither repeating nor losing a row; a changed window size then
// makes diff say the state must be rebuilt and the run refuse (exit 65) naming the operator.
// Also `pipec diff --base <ref>` in a temporary git repository.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PIPEC, pipec } from './run-cli.ts';

const spec = (filter: string, windowSec = 10): string => `-- issue 13.2: a sink filter change must resume
PIPELINE resume_demo WITH (checkpoint_interval = '200 ms');

CREATE SOURCE ev (
  k  STRING NOT NULL,
  v  BIGINT NOT NULL,
  ts TIMESTAMP(3) NOT NULL,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (connector = 'file', format = 'ndjson', path = 'in.ndjson', follow = 'true');

-- pipec:allow hot-partition-group-key
CREATE VIEW per_k AS
SELECT k, window_start, window_end, COUNT(*) AS n, SUM(v) AS total
FROM TUMBLE(ev, ts, INTERVAL '${windowSec}' SECOND)
GROUP BY k, window_start, window_end
EMIT ON WINDOW CLOSE
ON LATE DROP;

CREATE SINK picked AS SELECT k, window_start, n, total FROM per_k WHERE ${filter} WITH (
  connector = 'file', path = 'out.ndjson', format = 'ndjson'
);
`;

const at = (sec: number): string => `2024-01-01 00:00:${sec.toFixed(1).padStart(4, '0')}`;
const rows = (list: [string, number, number][]): string => list.map(([k, v, s]) => JSON.stringify({ k, v, ts: at(s) })).join('\n') + '\n';

/** `a` at even seconds, `b` at odd ones, v = 1, over [from, to]; `c` wherever listed. In time order. */
function stream(from: number, to: number, c: number[]): [string, number, number][] {
  const out: [string, number, number][] = [];
  for (let s = from; s <= to; s++) out.push([s % 2 === 0 ? 'a' : 'b', 1, s]);
  for (const s of c) out.push(['c', 1, s]);
  return out.sort((x, y) => x[2] - y[2]);
}

const outRows = (d: string): Record<string, unknown>[] =>
  existsSync(path.join(d, 'out.ndjson'))
    ? readFileSync(path.join(d, 'out.ndjson'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];

async function until(what: string, cond: () => boolean, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Runs `pipec run` until `done()`, then stops it with SIGINT (checkpoint first); its exit code and stderr. */
async function runUntil(d: string, done: () => boolean): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [PIPEC, 'run', 'spec.pipe.sql', '--checkpoint-dir', 'ck'], { cwd: d, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  try {
    await until('the expected output', done);
    // Rows that must not come (filtered out) would have come by now.
    await new Promise((r) => setTimeout(r, 1000));
  } finally {
    child.kill('SIGINT');
  }
  return { code: await exited, stderr };
}

const w = (k: string, start: number, n: number, total: number) => ({ k, window_start: at(start).replace('.0', '.000'), n, total });
const sorted = (xs: Record<string, unknown>[]) => [...xs].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

test('a sink filter change: diff says compatible and the run resumes without repeating or losing a row; a window change is refused naming the operator', { timeout: 240_000 }, async () => {
  const d = mkdtempSync(path.join(tmpdir(), 'pipec-resume-'));
  writeFileSync(path.join(d, 'spec.pipe.sql'), spec('n > 0'));
  // [0,10): a 5, b 5, c 2; [10,20): a 5, b 5; [20,30) stays open (the watermark ends at 28 s).
  writeFileSync(path.join(d, 'in.ndjson'), rows(stream(0, 29, [3.5, 5.5])));
  const first = await runUntil(d, () => outRows(d).length === 5);
  assert.equal(first.code, 130, first.stderr);
  assert.ok(existsSync(path.join(d, 'ck', 'checkpoint.json')), 'the stop checkpointed');
  const phase1 = [w('a', 0, 5, 5), w('b', 0, 5, 5), w('c', 0, 2, 2), w('a', 10, 5, 5), w('b', 10, 5, 5)];
  assert.deepEqual(sorted(outRows(d)), sorted(phase1));

  // The filter changes; diff, reading the state fingerprints, says the checkpoint still fits.
  writeFileSync(path.join(d, 'old.pipe.sql'), spec('n > 0'));
  writeFileSync(path.join(d, 'spec.pipe.sql'), spec('n > 4'));
  const diff = pipec(['diff', 'old.pipe.sql', 'spec.pipe.sql'], { cwd: d });
  assert.equal(diff.status, 0, diff.stdout + diff.stderr);
  assert.match(diff.stdout, /^compatible +sink picked: filter \(WHERE\) changed/m);
  assert.match(diff.stdout, /^checkpoint: `pipec run` resumes from a checkpoint of the old version$/m);
  assert.match(diff.stdout, /^impact: compatible$/m);

  // More rows while stopped: one more `a` in the open window [20,30) (v = 100), then [30,45).
  appendFileSync(path.join(d, 'in.ndjson'), rows([['a', 100, 29.5], ...stream(30, 44, [31.5, 33.5])]));
  const second = await runUntil(d, () => outRows(d).length === 9);
  assert.equal(second.code, 130, second.stderr);
  assert.doesNotMatch(second.stderr, /does not fit/);
  // Resumed: [20,30) holds the 5 + 5 rows of the first run plus the new `a`; c's 2 rows in [30,40) fail n > 4.
  assert.deepEqual(sorted(outRows(d)), sorted([...phase1, w('a', 20, 6, 105), w('b', 20, 5, 5), w('a', 30, 5, 5), w('b', 30, 5, 5)]));

  // A window size change: diff says the state must be rebuilt, and the run refuses naming the operator.
  writeFileSync(path.join(d, 'old.pipe.sql'), spec('n > 4'));
  writeFileSync(path.join(d, 'spec.pipe.sql'), spec('n > 4', 20));
  const diff2 = pipec(['diff', 'old.pipe.sql', 'spec.pipe.sql'], { cwd: d });
  assert.match(diff2.stdout, /^needs-backfill +operator per_k\/window: its state layout .* changed: `pipec run` refuses the checkpoint/m, diff2.stdout);
  assert.match(diff2.stdout, /^checkpoint: `pipec run` refuses a checkpoint of the old version: the state layout of operator 'per_k\/window' changed$/m);
  assert.match(diff2.stdout, /^impact: needs-backfill$/m);
  const before = readFileSync(path.join(d, 'out.ndjson'), 'utf8');
  const refused = spawnSync(process.execPath, [PIPEC, 'run', 'spec.pipe.sql', '--checkpoint-dir', 'ck'], { cwd: d, encoding: 'utf8', timeout: 60_000 });
  assert.equal(refused.status, 65, refused.stderr);
  assert.match(refused.stderr, /the state layout of operator 'per_k\/window' changed since it was taken\. Run the build that took it \(`pipec diff` shows what changed\), or change the spec back\. To start over, remove \S*ck:/);
  assert.equal(readFileSync(path.join(d, 'out.ndjson'), 'utf8'), before, 'nothing written');
});

function git(d: string, ...args: string[]): void {
  const r = spawnSync('git', ['-c', 'user.name=pipec test', '-c', 'user.email=test@pipec.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: d, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
}

test('pipec diff --base <ref> compares the specs at a git revision with the working tree, without checking it out', { timeout: 120_000 }, async () => {
  const d = mkdtempSync(path.join(tmpdir(), 'pipec-base-'));
  mkdirSync(path.join(d, 'specs'));
  writeFileSync(path.join(d, 'specs', 'demo.pipe.sql'), spec('n > 0'));
  git(d, 'init', '-q');
  git(d, 'add', '.');
  git(d, 'commit', '-q', '-m', 'first');
  writeFileSync(path.join(d, 'specs', 'demo.pipe.sql'), spec('n > 4'));
  writeFileSync(path.join(d, 'specs', 'extra.pipe.sql'), spec('n > 1').replace('resume_demo', 'extra_demo'));

  // No path: the project's spec folder (specs/).
  const r = pipec(['diff', '--base', 'HEAD'], { cwd: d });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^== specs\/demo\.pipe\.sql \(HEAD → working tree\)$/m);
  assert.match(r.stdout, /^compatible +sink picked: filter \(WHERE\) changed/m);
  assert.match(r.stdout, /^checkpoint: `pipec run` resumes/m);
  assert.match(r.stdout, /^== specs\/extra\.pipe\.sql \(HEAD → working tree\)\nnew spec: nothing at HEAD to compare with$/m);
  assert.equal(readFileSync(path.join(d, 'specs', 'demo.pipe.sql'), 'utf8'), spec('n > 4'), 'the working tree is left alone');

  writeFileSync(path.join(d, 'specs', 'demo.pipe.sql'), spec('n > 0', 20));
  const r2 = pipec(['diff', '--base', 'HEAD', path.join(d, 'specs', 'demo.pipe.sql')], { cwd: d });
  assert.match(r2.stdout, /^checkpoint: `pipec run` refuses a checkpoint of the old version: the state layout of operator 'per_k\/window' changed$/m, r2.stdout + r2.stderr);
  assert.match(r2.stdout, /^impact: needs-backfill$/m);

  // The same spec under another path: its generated files differ only in their headers, which are not changes.
  writeFileSync(path.join(d, 'copy.pipe.sql'), spec('n > 0', 20));
  const same = pipec(['diff', 'specs/demo.pipe.sql', 'copy.pipe.sql'], { cwd: d });
  assert.equal(same.status, 0, same.stderr);
  assert.equal(same.stdout, '\ncheckpoint: `pipec run` resumes from a checkpoint of the old version\nimpact: compatible\n');

  const bad = pipec(['diff', '--base', 'no-such-branch', 'specs'], { cwd: d });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^pipec diff: 'no-such-branch' is not a commit of this repository/);
  const notRepo = mkdtempSync(path.join(tmpdir(), 'pipec-norepo-'));
  writeFileSync(path.join(notRepo, 'x.pipe.sql'), spec('n > 0'));
  const nr = pipec(['diff', '--base', 'HEAD', 'x.pipe.sql'], { cwd: notRepo });
  assert.equal(nr.status, 2);
  assert.match(nr.stderr, /is not inside a git repository, so there is no revision to compare with/);
  assert.doesNotMatch(nr.stderr + bad.stderr, /\n\s+at /, 'no stack trace');
});
