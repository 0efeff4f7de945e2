// `pipec diff` and `pipec run` agree on whether a changed spec resumes from a checkpoint of the
// old one (issue 13 item 2): for each spec change of the table, the verdict diff prints and the
// runtime's own checkpoint check (fed the `state` the generated modules carry) come out the same,
// a change diff calls compatible always resumes, and a refusal names the part that changed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileFile } from '../../../src/build/compile.ts';
import { diffPlans, overallImpact, stateVerdict } from '../../../src/build/diff.ts';
import { generateModule } from '../../../targets/runtime/index.ts';
import { checkAgainstPlan, ShapeError } from '../../../targets/runtime/lib/checkpoint-shape.ts';
import type { StateFingerprints } from '../../../targets/runtime/lib/shared/state-compat.ts';
import type { PlanDoc } from '../../../src/plan/ir.ts';

const BASE = `-- a header comment
PIPELINE agree WITH (checkpoint_interval = '1 s');

CREATE SOURCE ev (
  id BIGINT NOT NULL,
  k  STRING NOT NULL,
  v  BIGINT NOT NULL,
  ts TIMESTAMP(3) NOT NULL,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (connector = 'file', format = 'ndjson', path = 'in.ndjson', follow = 'true');

CREATE VIEW per_k AS
SELECT k, window_start, window_end, COUNT(*) AS n, SUM(v) AS total
FROM TUMBLE(ev, ts, INTERVAL '10' SECOND)
WHERE v >= 0
GROUP BY k, window_start, window_end
EMIT ON WINDOW CLOSE
ON LATE DROP;

CREATE SINK big AS SELECT k, window_start, n, total FROM per_k WHERE n > 0 WITH (
  connector = 'file', path = 'out.ndjson', format = 'ndjson'
);
`;

interface Row {
  change: string;
  edit: (s: string) => string;
  /** Our expectation, from what each part's state holds (not from the code's output). */
  resumes: boolean;
  /** Refused: the part the message must name. */
  names?: string;
  /** A finding diff must list (subject: message start). */
  lists?: RegExp;
}

const sub = (from: string, to: string) => (s: string) => {
  assert.ok(s.includes(from), from);
  return s.replace(from, to);
};

const TABLE: Row[] = [
  { change: 'a comment only', edit: sub('-- a header comment', '-- another comment'), resumes: true },
  { change: "a sink's filter", edit: sub('WHERE n > 0', 'WHERE n > 4'), resumes: true, lists: /^compatible +sink big: filter \(WHERE\) changed/m },
  { change: "a sink's projection (computed column)", edit: sub('SELECT k, window_start, n, total FROM', 'SELECT k, window_start, n, total * 2 AS total FROM'), resumes: true, lists: /^compatible +sink big: projection \(SELECT list\) changed/m },
  { change: "the view's WHERE before the window (stateless)", edit: sub('WHERE v >= 0', 'WHERE v >= 1'), resumes: true, lists: /^compatible +view per_k: filter \(WHERE\) changed/m },
  { change: 'an aggregate renamed (alias only)', edit: (s) => sub('SUM(v) AS total', 'SUM(v) AS amount')(sub('n, total FROM', 'n, amount FROM')(s)), resumes: true },
  { change: 'a new sink', edit: (s) => s + `\nCREATE SINK all_rows FROM per_k WITH (connector = 'file', path = 'all.ndjson', format = 'ndjson');\n`, resumes: true, lists: /^compatible +sink all_rows: new file sink/m },
  { change: 'the window size', edit: sub("INTERVAL '10' SECOND", "INTERVAL '20' SECOND"), resumes: false, names: "operator 'per_k/window'" },
  { change: 'an aggregate added', edit: sub('SUM(v) AS total', 'SUM(v) AS total, MAX(v) AS top'), resumes: false, names: "operator 'per_k/window'" },
  { change: 'an aggregate function', edit: sub('SUM(v) AS total', 'MAX(v) AS total'), resumes: false, names: "operator 'per_k/window'" },
  { change: 'a group key', edit: (s) => s.replace('SELECT k, window_start', 'SELECT k, id, window_start').replace('GROUP BY k,', 'GROUP BY k, id,'), resumes: false, names: "operator 'per_k/window'" },
  { change: 'the watermark delay', edit: sub("ts - INTERVAL '1' SECOND", "ts - INTERVAL '2' SECOND"), resumes: false, names: "source 'ev'" },
  { change: "the source's path", edit: sub("path = 'in.ndjson'", "path = 'other.ndjson'"), resumes: false, names: "source 'ev'" },
  { change: "the sink's path", edit: sub("path = 'out.ndjson'", "path = 'out2.ndjson'"), resumes: false, names: "sink 'big'" },
];

async function compile(text: string): Promise<PlanDoc> {
  const r = await compileFile('agree.pipe.sql', { cwd: '/nonexistent', env: { get: () => undefined }, readText: () => text });
  assert.ok(r.plan && !r.diagnostics.hasErrors, r.diagnostics.sorted().map((d) => d.message).join('\n'));
  return r.plan;
}

/** The `state` object of a generated module: what the runner compares with a checkpoint. */
function moduleState(plan: PlanDoc): StateFingerprints {
  const text = generateModule(plan).text;
  const m = /const state = (\{[\s\S]*?\n {2}\});/.exec(text);
  assert.ok(m, 'the generated module declares its state fingerprints');
  return new Function(`return ${m[1]}`)() as StateFingerprints;
}

/** The runner's check of a checkpoint the old build wrote against the new build; null when it resumes. */
function runtimeRefusal(oldPlan: PlanDoc, newPlan: PlanDoc): string | null {
  const saved = moduleState(oldPlan);
  const now = moduleState(newPlan);
  const entries = (m: Record<string, string>) => Object.fromEntries(Object.keys(m).map((k) => [k, {}]));
  const doc = { version: 3, pipeline: 'agree', fingerprint: 'old', state: saved, sources: entries(saved.sources), operators: entries(saved.operators), sinks: entries(saved.sinks) };
  try {
    checkAgainstPlan(doc, { pipeline: 'agree', fingerprint: 'new', state: now, sources: Object.keys(now.sources), sinks: Object.keys(now.sinks), operators: Object.keys(now.operators), member: null });
    return null;
  } catch (e) {
    if (e instanceof ShapeError) return e.message;
    throw e;
  }
}

test('the base spec resumes from its own checkpoint, and its window holds state', async () => {
  const p = await compile(BASE);
  assert.equal(runtimeRefusal(p, p), null);
  assert.deepEqual(Object.keys(moduleState(p).operators), ['per_k/window']);
});

for (const row of TABLE) {
  test(`changing ${row.change}: diff and the runtime agree (${row.resumes ? 'resumes' : 'refused'})`, async () => {
    const before = await compile(BASE);
    const after = await compile(row.edit(BASE));
    const refusal = runtimeRefusal(before, after);
    const verdict = stateVerdict(before, after);
    const findings = diffPlans(before, after);
    const printed = findings.map((f) => `${f.impact.padEnd(15)} ${f.subject}: ${f.message}`).join('\n');
    assert.equal(refusal === null, row.resumes, `runtime: ${refusal}`);
    assert.equal(verdict.resumes, row.resumes, 'diff verdict');
    if (overallImpact(findings) === 'compatible') assert.equal(refusal, null, 'a change diff calls compatible resumes');
    if (!row.resumes) {
      assert.ok(refusal!.includes(row.names!), `the refusal names ${row.names}: ${refusal}`);
      assert.match(printed, /^needs-backfill/m, 'diff says the state must be rebuilt');
    }
    if (row.lists) assert.match(printed, row.lists);
    if (row.change === 'a comment only') assert.deepEqual(findings, []);
  });
}
