// Generated plans (seeded): chains of filters, projects, unions, window and group aggregates
// over two sources, some outputs exposed as views. After optimizePlan each must be valid, keep
// every sink/view schema, and compute the same sink rows (independent batch interpreter).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { optimizePlan } from '../../../src/plan/optimize/index.ts';
import type { IrExpr, PlanDoc } from '../../../src/plan/ir.ts';
import { DAY, E, MIN, PlanBuilder, T, agg, column } from '../../fixtures/plans/builder.ts';
import { evaluatePlan, sampleData } from '../../fixtures/plans/evaluate.ts';
import { outputSchemas, planProblems } from '../../fixtures/plans/validate.ts';

function generator(seed: number) {
  let s = seed * 2654435761 >>> 0 || 1;
  const rand = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
  return { rand, pick: <X>(xs: X[]): X => xs[Math.floor(rand() * xs.length)]! };
}

function randomPlan(seed: number): PlanDoc {
  const { rand, pick } = generator(seed);
  const b = new PlanBuilder(`random_${seed}`);
  const cols = () => [column('k', T.string()), column('v', T.bigint()), column('amount', T.decimal(12, 2)), column('ts', T.timestamp()), column('extra', T.string())];
  for (const name of ['a', 'b']) {
    b.source({ name, connector: 'kafka', columns: cols(), watermark: { column: 'ts', delayMs: 0, idleTimeoutMs: 1000 }, messageKey: ['k'], options: { topic: name } });
  }
  type Col = (n: string) => IrExpr;
  const predicate = (c: Col, names: string[]): IrExpr => {
    const atom = (): IrExpr => {
      const n = pick(names);
      if (n === 'k' || n === 'extra') return E.cmp(pick(['eq', 'ne'] as const), c(n), E.str(pick(['a', 'b', 'c'])));
      if (n === 'amount') return E.cmp(pick(['gt', 'lt'] as const), c(n), E.dec(pick(['0', '7', '100']), 3, 0));
      if (n === 'ts') return E.cmp('lt', c(n), E.lit(300_000, T.timestamp(3, false)));
      return E.cmp(pick(['gt', 'le', 'ne'] as const), c(n), E.bigint(pick([1, 3, 100])));
    };
    const r = rand();
    if (r < 0.15) return E.and(atom(), E.cmp('lt', E.int(1), E.int(2)));
    if (r < 0.5) return E.and(atom(), atom());
    if (r < 0.6) return E.or(atom(), atom());
    return atom();
  };

  let counter = 0;
  const id = (p: string) => `${p}${++counter}`;
  const branch = (): { op: string; names: string[] } => {
    let op = b.scan(pick(['a', 'b']), id('scan'));
    let names = ['k', 'v', 'amount', 'ts', 'extra'];
    let aggregated = false;
    for (let step = 0, n = 1 + Math.floor(rand() * 4); step < n; step++) {
      const r = rand();
      if (r < 0.4) {
        op = b.filter(op, (c) => predicate(c, names), id('f'));
      } else if (r < 0.65 && !aggregated) {
        const keep = names.filter((x) => x === 'k' || x === 'ts' || rand() < 0.6);
        const computed = names.includes('v') && rand() < 0.5;
        op = b.project(op, (c) => [...keep.map((x): [string, IrExpr] => [x, c(x)]), ...(computed ? [['v2', E.call('mul', [c('v'), E.bigint(2)], T.bigint())] as [string, IrExpr]] : [])], id('p'));
        names = [...keep, ...(computed ? ['v2'] : [])];
      } else if (r < 0.85 && !aggregated) {
        const window = pick([{ kind: 'tumble' as const, sizeMs: MIN, offsetMs: 0 }, { kind: 'hop' as const, slideMs: MIN, sizeMs: 2 * MIN }]);
        const hasAmount = names.includes('amount');
        op = b.windowAgg(op, {
          id: id('w'), window, time: 'ts', keys: ['k'],
          aggregates: (c) => [agg.countStar('n'), ...(hasAmount ? [agg.sum('total', c('amount'), T.decimal(38, 2))] : [])],
          late: { kind: 'drop' },
        });
        names = ['k', 'window_start', 'window_end', 'n', ...(hasAmount ? ['total'] : [])];
        aggregated = true;
      } else if (!aggregated) {
        const hasV = names.includes('v');
        op = b.groupAgg(op, { id: id('g'), keys: ['k'], aggregates: (c) => [hasV ? agg.max('top', c('v')) : agg.countStar('top')], stateTtlMs: DAY });
        names = ['k', 'top'];
        aggregated = true;
      }
      if (rand() < 0.15) b.view(id('view'), op);
    }
    return { op, names };
  };

  const first = branch();
  let out = first.op;
  if (rand() < 0.3) {
    // A union of two raw branches with identical schemas.
    const l = b.scan('a', id('scan'));
    const r = b.scan('b', id('scan'));
    const u = b.union([b.filter(l, (c) => predicate(c, ['k', 'v']), id('f')), r], id('u'));
    out = b.filter(u, (c) => predicate(c, ['k', 'v', 'amount']), id('f'));
    b.sink({ name: 'union_out', connector: 'stdout', input: out });
  }
  b.sink({ name: 'out', connector: 'stdout', input: first.op });
  if (rand() < 0.5) b.sink({ name: 'other', connector: 'stdout', input: branch().op });
  return b.build();
}

test('optimizePlan on 150 generated plans: valid, same schemas, same rows', () => {
  let changed = 0;
  for (let seed = 1; seed <= 150; seed++) {
    const before = randomPlan(seed);
    const after = optimizePlan(before);
    assert.deepEqual(planProblems(after), [], `seed ${seed}`);
    assert.deepEqual(outputSchemas(after), outputSchemas(before), `seed ${seed}`);
    if (JSON.stringify(after.operators) !== JSON.stringify(before.operators)) changed++;
    for (const dataSeed of [seed, seed + 1000]) {
      const data = sampleData(before, dataSeed, 50);
      assert.deepEqual(evaluatePlan(after, data), evaluatePlan(before, data), `plan seed ${seed}, data seed ${dataSeed}`);
    }
  }
  // The generator must exercise the passes, not only trivially valid plans.
  assert.ok(changed > 100, `only ${changed} plans were changed by the optimizer`);
});
