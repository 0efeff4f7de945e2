// Robustness: random token soups, mutated fixtures and random characters never make the front
// end throw or report an internal error, and every diagnostic has a well-formed span. When a
// mutated file still parses cleanly, its formatting is idempotent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipeSql, parseSqlExpr, parseSqlQuery } from '../../../src/syntax/sql/index.ts';
import { formatSql } from '../../../src/syntax/format/to-sql.ts';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import type { FrontEndContext } from '../../../src/syntax/front-end.ts';
import { fixture, FIXTURE_NAMES } from './helpers.ts';

/** Every ${VAR} resolves, so mutated fixtures can parse cleanly and reach the idempotence check. */
const anyEnv = (): FrontEndContext & { diagnostics: DiagnosticBag } => ({ file: 'fuzz.pipe.sql', env: { get: (n) => n.toLowerCase() }, diagnostics: new DiagnosticBag() });

/** mulberry32: a small seeded PRNG, so failures reproduce. */
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

const VOCAB = [
  'CREATE', 'SOURCE', 'VIEW', 'SINK', 'CATALOG', 'COMPACTION', 'POLICY', 'PIPELINE', 'WITH', 'AS', 'SELECT', 'FROM', 'WHERE',
  'GROUP', 'BY', 'HAVING', 'UNION', 'ALL', 'JOIN', 'LEFT', 'ON', 'EMIT', 'CHANGES', 'WINDOW', 'CLOSE', 'ALLOWED', 'LATENESS',
  'LATE', 'DROP', 'TO', 'TUMBLE', 'HOP', 'SESSION', 'TABLE', 'DESCRIPTOR', 'PARTITION', 'INTERVAL', "'5'", 'SECOND', 'CASE',
  'WHEN', 'THEN', 'ELSE', 'END', 'CAST', 'EXTRACT', 'NOT', 'NULL', 'IS', 'IN', 'BETWEEN', 'AND', 'OR', 'LIKE', 'TRUE', 'DATE',
  'TIMESTAMP', 'WATERMARK', 'FOR', 'PRIMARY', 'KEY', 'METADATA', 'REWRITE', 'DATA', 'FILES', 'EXPIRE', 'SNAPSHOTS', 'OLDER',
  'THAN', 'SCHEDULE', 'EVERY', 'DECIMAL', 'ARRAY', 'MAP', 'ROW', '<', '>', '(', ')', ',', ';', '.', '*', '+', '-', '/', '=',
  '==', '<>', '||', 'a', 'b', 'orders', '"Q"', "'x'", "'${V}'", '1', '2.5', 'count', 'floor', 'trim', 'BOTH', 'DISTINCT',
];

function soup(r: () => number): string {
  const n = 1 + Math.floor(r() * 60);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(VOCAB[Math.floor(r() * VOCAB.length)]!);
  return out.join(r() < 0.5 ? ' ' : '\n');
}

function mutate(text: string, r: () => number): string {
  let t = text;
  const steps = 1 + Math.floor(r() * 2);
  for (let i = 0; i < steps; i++) {
    const p = Math.floor(r() * (t.length + 1));
    const q = Math.min(t.length, p + Math.floor(r() * 20));
    const k = r();
    if (k < 0.3) t = t.slice(0, p) + t.slice(q);
    else if (k < 0.55) t = t.slice(0, p) + VOCAB[Math.floor(r() * VOCAB.length)]! + ' ' + t.slice(p);
    else if (k < 0.7) t = t.slice(0, p) + "'\"(/*-);,"[Math.floor(r() * 9)]! + t.slice(p);
    else if (k < 0.85) t = t.slice(0, p) + t.slice(p, q) + t.slice(p);
    else t = t.slice(0, p);
  }
  return t;
}

function chars(r: () => number): string {
  const n = Math.floor(r() * 80);
  let s = '';
  for (let i = 0; i < n; i++) {
    const k = r();
    s += k < 0.7 ? String.fromCharCode(32 + Math.floor(r() * 95)) : k < 0.85 ? '\n' : String.fromCharCode(Math.floor(r() * 0x3000));
  }
  return s;
}

function checkBag(bag: DiagnosticBag, text: string): void {
  for (const d of bag.items) {
    assert.notEqual(d.code, 'internal-error', `${d.message}\n--- input ---\n${text}`);
    assert.ok(d.span.start.line >= 1 && d.span.start.column >= 1, `bad span for ${d.code} in:\n${text}`);
    assert.ok(d.span.start.offset <= d.span.end.offset && d.span.end.offset <= text.length, `span out of range for ${d.code} in:\n${text}`);
  }
}

function roundTrip(text: string): boolean {
  const ctx = anyEnv();
  const file = parsePipeSql(text, ctx);
  checkBag(ctx.diagnostics, text);
  const out = formatSql(file);
  if (ctx.diagnostics.hasErrors) return false;
  const ctx2 = anyEnv();
  const again = formatSql(parsePipeSql(out, ctx2));
  assert.deepEqual(ctx2.diagnostics.items.map((d) => d.message), [], `formatted text does not parse:\n${out}\n--- from ---\n${text}`);
  assert.equal(again, out, `formatting is not idempotent for:\n${text}`);
  return true;
}

test('random token soups never throw', () => {
  const r = rng(1);
  for (let i = 0; i < 300; i++) roundTrip(soup(r));
});

test('mutated fixtures never throw; clean ones format idempotently', () => {
  const r = rng(2);
  const texts = FIXTURE_NAMES.map(fixture);
  let clean = 0;
  for (let i = 0; i < 300; i++) if (roundTrip(mutate(texts[i % texts.length]!, r))) clean++;
  // The idempotence half of this test only means something if many mutants stay valid.
  assert.ok(clean >= 30, `only ${clean} clean mutants`);
});

test('random characters never throw', () => {
  const r = rng(3);
  for (let i = 0; i < 150; i++) roundTrip(chars(r));
});

test('fragment parsers (YAML bodies) never throw; null always comes with an error, no error always with a tree', () => {
  const r = rng(4);
  const queries = ['SELECT a, COUNT(*) AS n FROM TUMBLE(t, ts, INTERVAL \'1\' MINUTE) GROUP BY a', "SELECT * FROM a JOIN b ON a.k = b.k AND a.ts BETWEEN b.ts - INTERVAL '5' MINUTE AND b.ts"];
  const exprs = ["ts - INTERVAL '5' SECOND", "CASE WHEN a IS NULL THEN 0 ELSE CAST(a AS INT) END > 3 OR s LIKE 'x%'"];
  for (let i = 0; i < 200; i++) {
    const asQuery = i % 2 === 0;
    const text = r() < 0.3 ? soup(r) : mutate((asQuery ? queries : exprs)[(i >> 1) % 2]!, r);
    const ctx = anyEnv();
    const out = asQuery ? parseSqlQuery(text, ctx) : parseSqlExpr(text, ctx);
    checkBag(ctx.diagnostics, text);
    // Errors found after parsing (a bad type, wrong window arguments) still return the tree.
    if (out === null) assert.ok(ctx.diagnostics.hasErrors, `null without an error:\n${text}`);
    if (!ctx.diagnostics.hasErrors) assert.notEqual(out, null, `no error but no tree:\n${text}`);
  }
});
