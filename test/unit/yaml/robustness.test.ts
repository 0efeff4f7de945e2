// Garbage in, diagnostics out: parsePipeYaml never throws, never reports an internal error,
// and every span it reports lies inside the file (deterministic fuzzing, fixed seeds).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LineMap } from '../../../src/diagnostics/span.ts';
import { fixture, parseYaml } from './helpers.ts';

/** mulberry32: a small seeded PRNG so failures reproduce. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function checkSurvives(text: string, label: string): void {
  let r;
  try {
    r = parseYaml(text, { X: 'x' });
  } catch (e) {
    assert.fail(`${label}: threw ${e instanceof Error ? e.message : String(e)}\n${JSON.stringify(text).slice(0, 400)}`);
  }
  const lm = new LineMap(text);
  for (const d of r.ctx.diagnostics.items) {
    assert.notEqual(d.code, 'internal-error', `${label}: ${d.message}\n${JSON.stringify(text).slice(0, 400)}`);
    const { start, end } = d.span;
    assert.ok(start.offset >= 0 && start.offset <= end.offset && end.offset <= text.length, `${label}: span out of the file (${d.code})`);
    assert.deepEqual(lm.pos(start.offset), start, `${label}: line/column of ${d.code} disagree with its offset`);
  }
  assert.equal(r.ast.source, 'yaml');
}

const FIXTURES = ['full.pipe.yaml', 'language-example.pipe.yaml', 'many-mistakes.pipe.yaml', 'sql-errors.pipe.yaml'];

test('every prefix of the fixtures parses without throwing', () => {
  for (const f of FIXTURES) {
    const text = fixture(f);
    for (let i = 0; i <= text.length; i += 7) checkSurvives(text.slice(0, i), `${f} cut at ${i}`);
  }
});

test('random edits of the fixtures parse without throwing', () => {
  const next = rng(20261130);
  const alphabet = ' \n\t:-[]{}|>\'"#&*!%@`,?~\\$abcxyz019\r';
  for (const f of FIXTURES) {
    const base = fixture(f);
    for (let n = 0; n < 60; n++) {
      let t = base;
      const edits = 1 + Math.floor(next() * 4);
      for (let e = 0; e < edits; e++) {
        const at = Math.floor(next() * (t.length + 1));
        const ch = alphabet[Math.floor(next() * alphabet.length)]!;
        const op = next();
        t = op < 0.33 ? t.slice(0, at) + t.slice(at + 1) : op < 0.66 ? t.slice(0, at) + ch + t.slice(at) : t.slice(0, at) + ch + t.slice(at + 1);
      }
      checkSurvives(t, `${f} edit #${n}`);
    }
  }
});

test('random YAML-ish noise parses without throwing', () => {
  const next = rng(7);
  const atoms = ['sources:', 'views:', 'sinks:', '  ', '\n', '- ', 'query: |', 'SELECT', '{', '}', '[', ']', ': ', ',', '&a ', '*a', '!!str ', '? ', '"', "'", '#', 'columns:', 'watermark:', 'type: ', '${X}', '5s', 'null', '~', '<<: *a', 'compaction_policies:', 'actions:', 'on: '];
  for (let n = 0; n < 300; n++) {
    let t = '';
    const len = Math.floor(next() * 40);
    for (let i = 0; i < len; i++) t += atoms[Math.floor(next() * atoms.length)];
    checkSurvives(t, `noise #${n}`);
  }
});

test('hostile documents: alias bombs, deep nesting, odd keys, tags, control characters', () => {
  const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]'];
  for (let i = 0; i < 9; i++) bomb.push(`${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${new Array(9).fill(`*${String.fromCharCode(97 + i)}`).join(', ')}]`);
  const cases: [string, string][] = [
    ['alias bomb', `sources:\n  s:\n    ${bomb.join('\n    ')}\n`],
    ['deep flow nesting', `sources: ${'['.repeat(2000)}${']'.repeat(2000)}\n`],
    ['deep block nesting', Array.from({ length: 300 }, (_, i) => `${' '.repeat(i * 2)}k${i}:`).join('\n')],
    ['complex keys', 'sources:\n  ? [a, b]\n  : { connector: kafka }\n  ? { x: 1 }\n  : 2\n'],
    ['numeric and null keys', 'sources:\n  1: { connector: kafka }\n  ~: { connector: kafka }\n  : { connector: kafka }\n'],
    ['tags', 'sources:\n  s: !!map { connector: !!str kafka, n: !!int 3, b: !!binary aGk= }\nviews: !custom { v: 1 }\n'],
    ['merge keys', 'x: &base { connector: kafka }\nsources:\n  s: { <<: *base, topic: t }\n'],
    ['BOM and CRLF', '\uFEFFpipeline: p\r\nsources:\r\n  s: { connector: kafka }\r\n'],
    ['control characters', 'pipeline: p\u0000\nsources:\n  s: { connector: "\u0001" }\n'],
    ['lone surrogate', 'pipeline: "\uD800"\n'],
    ['very long line', `pipeline: ${'a'.repeat(100_000)}\n`],
    ['dangling alias', 'sources:\n  s: *nothing\n'],
    ['query that is a number', 'views:\n  v: { query: 42 }\n'],
    ['query that is empty', 'views:\n  v:\n    query: |\n\n'],
    ['directives', '%YAML 1.2\n---\npipeline: p\n...\n'],
    ['only a scalar', 'hello\n'],
    ['JSON', '{"pipeline": "p", "sources": {"s": {"connector": "kafka", "columns": [{"name": "a", "type": "INT"}]}}}'],
  ];
  for (const [label, text] of cases) checkSurvives(text, label);
});

test('JSON is YAML: a .pipe.yaml written as JSON works', () => {
  const r = parseYaml('{"pipeline": "p", "sources": {"s": {"connector": "kafka", "columns": [{"name": "a", "type": "INT"}]}}}');
  assert.deepEqual(r.diags, []);
  const s = r.ast.statements[1]!;
  assert.ok(s.kind === 'source' && s.columns);
  assert.deepEqual(s.columns.map((c) => [c.name.name, c.type.kind]), [['a', 'int']]);
});
