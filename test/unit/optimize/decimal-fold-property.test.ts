// Exact DECIMAL folding against an independent implementation on scaled BigInts: for a few
// hundred generated operand pairs, add/sub/mul/div fold to the same exact string.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { foldExpr } from '../../../src/plan/optimize/constant-fold.ts';
import type { IrFn } from '../../../src/plan/ir.ts';
import { E, T } from '../../fixtures/plans/builder.ts';

/** value × 10^scale as a BigInt. */
function scaled(s: string, scale: number): bigint {
  const neg = s.startsWith('-');
  const [i, f = ''] = s.replace('-', '').split('.');
  const v = BigInt(i! + f.padEnd(scale, '0').slice(0, scale));
  return neg ? -v : v;
}

function render(v: bigint, scale: number): string {
  const neg = v < 0n;
  const digits = (neg ? -v : v).toString().padStart(scale + 1, '0');
  const out = scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return neg ? `-${out}` : out;
}

/** n / d rounded half away from zero. */
function divRound(n: bigint, d: bigint): bigint {
  const neg = n < 0n !== d < 0n;
  const an = n < 0n ? -n : n;
  const ad = d < 0n ? -d : d;
  const q = (2n * an + ad) / (2n * ad);
  return neg ? -q : q;
}

function reference(fn: IrFn, a: string, sa: number, b: string, sb: number, st: number): string {
  const x = scaled(a, sa);
  const y = scaled(b, sb);
  const up = (v: bigint, from: number) => v * 10n ** BigInt(st - from);
  switch (fn) {
    case 'add':
      return render(up(x, sa) + up(y, sb), st);
    case 'sub':
      return render(up(x, sa) - up(y, sb), st);
    case 'mul':
      return render(divRound(x * y * 10n ** BigInt(st), 10n ** BigInt(sa + sb)), st);
    case 'div':
      return render(divRound(x * 10n ** BigInt(st + sb), y * 10n ** BigInt(sa)), st);
    default:
      throw new Error(fn);
  }
}

function* operands(): Generator<[string, number]> {
  let s = 12345;
  const next = () => ((s = (s * 1103515245 + 12345) % 2147483648), s);
  for (let i = 0; i < 300; i++) {
    const scale = next() % 5;
    const digits = 1 + (next() % 12);
    let v = '';
    for (let d = 0; d < digits; d++) v += String(next() % 10);
    v = v.replace(/^0+(?=\d)/, '');
    const body = scale ? `${v.padStart(scale + 1, '0').slice(0, -scale)}.${v.padStart(scale + 1, '0').slice(-scale)}` : v;
    yield [next() % 3 === 0 ? `-${body}` : body, scale];
  }
}

test('DECIMAL add, sub, mul and div fold exactly like scaled-integer arithmetic', () => {
  const ops = [...operands()];
  let checked = 0;
  for (let i = 0; i + 1 < ops.length; i += 2) {
    const [a, sa] = ops[i]!;
    const [b, sb] = ops[i + 1]!;
    const cases: [IrFn, number][] = [['add', Math.max(sa, sb)], ['sub', Math.max(sa, sb)], ['mul', sa + sb], ['div', 6], ['mul', Math.max(sa, sb)]];
    for (const [fn, st] of cases) {
      if (fn === 'div' && scaled(b, sb) === 0n) continue;
      const type = T.decimal(38, st, false);
      const folded = foldExpr(E.call(fn, [E.dec(a, 14, sa), E.dec(b, 14, sb)], type));
      assert.equal(folded.kind, 'lit', `${a} ${fn} ${b}`);
      assert.equal((folded as { value: unknown }).value, reference(fn, a, sa, b, sb, st), `${a} ${fn} ${b} at scale ${st}`);
      checked++;
    }
  }
  assert.ok(checked > 700);
});
