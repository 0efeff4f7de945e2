// Every lint in the table has a registered code that `pipec explain` can document: a warning
// with a title, a help line and a long explanation; no two rules share a code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lintRules } from '../../../src/lint/index.ts';
import { lookupCode } from '../../../src/diagnostics/registry.ts';
import { lintCodes } from '../../../src/diagnostics/codes/lint.ts';
import { planCodes } from '../../../src/diagnostics/codes/plan.ts';

test('each rule reports a distinct, documented warning code', () => {
  const codes = lintRules().map((r) => r.code);
  assert.equal(new Set(codes).size, codes.length);
  for (const code of codes) {
    const def = lookupCode(code);
    assert.ok(def, code);
    assert.equal(def.severity, 'warning', code);
    assert.ok(def.title.length > 10, code);
    assert.ok(def.help, `${code} has a help line`);
    assert.ok(def.explain.length > 200, `${code} has a long explanation`);
  }
});

test('every lint and plan code is run by some rule (no dead codes)', () => {
  const used = new Set<string>(lintRules().map((r) => r.code));
  for (const code of [...Object.keys(lintCodes), ...Object.keys(planCodes)]) assert.ok(used.has(code), code);
});
