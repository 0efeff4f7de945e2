// printPlanJson (sorted keys, 2-space indent, trailing newline, byte-identical for equal plans)
// and printPlanDot (nodes with labels, dashed late edges), against hand-written expectations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { printPlanJson } from '../../../src/plan/print/json.ts';
import { printPlanDot } from '../../../src/plan/print/dot.ts';
import type { PlanDoc } from '../../../src/plan/ir.ts';
import { E, PlanBuilder, T, column } from '../../fixtures/plans/builder.ts';
import { ALL_FIXTURES } from '../../fixtures/plans/index.ts';
import { clicksPerUser } from './small-plan.ts';

function tiny(order: 'ab' | 'ba'): PlanDoc {
  const a = { value: '1', template: '1', envVars: [] };
  const b = { value: 'x', template: '${X}', envVars: ['X'] };
  return {
    irVersion: 1,
    pipeline: { name: 'p', file: 'p.pipe.sql', syntax: 'sql', checkpointIntervalMs: 1000, options: order === 'ab' ? { a, b } : { b, a } },
    catalogs: [],
    sources: [],
    operators: [],
    views: [],
    sinks: [],
    compactions: [],
  };
}

test('json: keys sorted at every level, 2-space indent, trailing newline', () => {
  const expected = `{
  "catalogs": [],
  "compactions": [],
  "irVersion": 1,
  "operators": [],
  "pipeline": {
    "checkpointIntervalMs": 1000,
    "file": "p.pipe.sql",
    "name": "p",
    "options": {
      "a": {
        "envVars": [],
        "template": "1",
        "value": "1"
      },
      "b": {
        "envVars": [
          "X"
        ],
        "template": "\${X}",
        "value": "\${X}"
      }
    },
    "syntax": "sql"
  },
  "sinks": [],
  "sources": [],
  "views": []
}
`;
  assert.equal(printPlanJson(tiny('ab')), expected);
  assert.equal(printPlanJson(tiny('ba')), expected, 'insertion order does not matter');
});

/** The plan with every `${VAR}`-fed option's value replaced by its template (what may be printed). */
function withTemplates(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withTemplates);
  if (v === null || typeof v !== 'object') return v;
  const o = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withTemplates(x)]));
  return Array.isArray(o['envVars']) && (o['envVars'] as unknown[]).length > 0 ? { ...o, value: o['template'] } : o;
}

test('json: the printed plan parses back to the same plan, secrets as their templates', () => {
  for (const make of Object.values(ALL_FIXTURES)) {
    const plan = make();
    assert.deepEqual(JSON.parse(printPlanJson(plan)), withTemplates(JSON.parse(JSON.stringify(plan))));
    assert.equal(printPlanJson(plan), printPlanJson(structuredClone(plan)));
  }
});

test('dot: the small plan, by hand', () => {
  const expected = `digraph "clicks_per_user" {
  rankdir=LR;
  node [fontname="Helvetica", fontsize=10];
  edge [fontname="Helvetica", fontsize=9];
  "source:clicks" [shape=cylinder, label="source clicks\\nkafka (json)\\nwatermark: ts - 2 s, idle timeout 10 s"];
  "op:s" [shape=box, label="scan s\\nsource clicks (kafka, json)\\ncolumns user, ts\\nappend; stateless"];
  "op:f" [shape=box, label="filter f\\nuser <> 'bot''s'\\nappend; stateless"];
  "op:w" [shape=box, style=bold, label="window_agg w\\nview per_user\\nTUMBLE(ts, 1 min)\\nkeys (user)\\nCOUNT(*) AS n BIGINT\\nemit on window close\\nallowed lateness 5 s\\nlate rows to late_clicks\\nappend; bounded by window 1 min + lateness 5 s"];
  "sink:out" [shape=folder, label="sink out\\nstdout"];
  "sink:late_clicks" [shape=folder, label="sink late_clicks\\nfile late.ndjson (ndjson)"];
  "source:clicks" -> "op:s";
  "op:s" -> "op:f";
  "op:f" -> "op:w";
  "op:w" -> "sink:out";
  "op:w" -> "sink:late_clicks" [style=dashed, label="late"];
}
`;
  assert.equal(printPlanDot(clicksPerUser()), expected);
});

test('dot: quotes and backslashes in labels are escaped', () => {
  const b = new PlanBuilder('q');
  b.source({ name: 'ev', connector: 'kafka', columns: [column('s', T.string())], options: { topic: 'ev' } });
  const f = b.filter(b.scan('ev', 's'), (c) => E.cmp('eq', c('s'), E.str('say "hi" \\ bye')), 'f');
  b.sink({ name: 'out', connector: 'stdout', input: f });
  const dot = printPlanDot(b.build());
  assert.ok(dot.includes(`label="filter f\\ns = 'say \\"hi\\" \\\\ bye'\\nappend; stateless"`), dot);
});

test('dot: deterministic, join inputs labelled left and right', () => {
  const plan = ALL_FIXTURES['cdcTemporalJoin']!();
  const dot = printPlanDot(plan);
  assert.equal(dot, printPlanDot(ALL_FIXTURES['cdcTemporalJoin']!()));
  assert.ok(dot.includes('"op:scan_orders" -> "op:join_customer" [label="left"];'));
  assert.ok(dot.includes('"op:scan_customers" -> "op:join_customer" [label="right"];'));
});
