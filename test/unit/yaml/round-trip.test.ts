// `pipec fmt --to yaml|sql` converts both ways: the canonical YAML (expected texts written by
// hand from the rules in src/syntax/yaml/CONTEXT.md) and sql→yaml→sql→yaml stability.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatYaml } from '../../../src/syntax/format/to-yaml.ts';
import { formatSql } from '../../../src/syntax/format/to-sql.ts';
import type { PipeFile } from '../../../src/syntax/ast.ts';
import { fixture, parseSql, parseYaml, withoutSpans } from './helpers.ts';

/** fmt keeps `${VAR}` as written; so do these tests. */
const KEEP: Record<string, string> = new Proxy({}, { get: (_t, name) => (typeof name === 'string' ? `\${${name}}` : undefined) });

test('the LANGUAGE.md example prints as the canonical YAML', () => {
  const expected = `pipeline: orders_revenue

sources:
  orders:
    connector: kafka
    topic: orders
    format: avro
    schema: registry:orders-value
    idle_timeout: 30s
    watermark: { column: order_ts, delay: 5s }

views:
  revenue_1m:
    query: |
      SELECT customer_id, window_start, window_end, SUM(amount) AS revenue
      FROM TUMBLE(orders, order_ts, INTERVAL '1' MINUTE)
      GROUP BY customer_id, window_start, window_end
    emit: on_window_close
    allowed_lateness: 30s
    on_late: { to: orders_late }

sinks:
  revenue_ch:
    from: revenue_1m
    connector: clickhouse
    table: analytics.revenue_1m
`;
  assert.equal(formatYaml(parseYaml(fixture('language-example.pipe.yaml')).ast), expected);
  // The .pipe.sql twin opens with a comment, which the YAML keeps above the pipeline.
  const header = '# The LANGUAGE.md "YAML twin" example written as .pipe.sql; it must parse to the same AST.\n';
  assert.equal(formatYaml(parseSql(fixture('language-example.pipe.sql')).ast), header + expected);
});

test('SQL constructs print with their one YAML spelling', () => {
  const sql = `PIPELINE p WITH (checkpoint_interval = '1 min', parallel = 4);
-- pipec:allow some-lint
CREATE SOURCE "Raw Events" (
  id BIGINT NOT NULL,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2 seconds'
) WITH (
  fields.id.kind = 'sequence',
  connector = 'datagen',
  total_rows = 10,
  fields.id.min = 1,
  follow = TRUE
);
CREATE SOURCE s (ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (connector = 'kafka', topic = '007');
CREATE VIEW v WITH (state_ttl = '1 h') AS SELECT id, COUNT(*) AS n FROM "Raw Events" GROUP BY id EMIT CHANGES ON LATE DROP;
CREATE SINK k AS SELECT * FROM v WITH (connector = 'stdout');
`;
  const expected = `pipeline: p
options:
  checkpoint_interval: 1 min
  parallel: 4

sources:
  # pipec:allow some-lint
  '"Raw Events"':
    connector: datagen
    fields:
      id: { kind: sequence, min: 1 }
    total_rows: 10
    follow: true
    columns:
      id: { type: BIGINT, not_null: true }
      ts: { type: TIMESTAMP(3) }
    watermark: { column: ts, delay: 2 seconds }

  s:
    connector: kafka
    topic: '007'
    columns:
      ts: { type: TIMESTAMP(3) }
    watermark: { column: ts, expr: ts }

views:
  v:
    query: |
      SELECT id, COUNT(*) AS n
      FROM "Raw Events"
      GROUP BY id
    emit: changes
    on_late: drop
    state_ttl: 1 h

sinks:
  k:
    query: |
      SELECT *
      FROM v
    connector: stdout
`;
  const s = parseSql(sql, KEEP);
  assert.deepEqual(s.diags, []);
  const yaml = formatYaml(s.ast);
  assert.equal(yaml, expected);
  // ... and it reads back as the same pipeline (fields.* regrouped, connector first).
  const y = parseYaml(yaml, KEEP);
  assert.deepEqual(y.diags, []);
  const src = y.ast.statements[1]!;
  assert.ok(src.kind === 'source');
  assert.deepEqual(src.options.map((o) => o.key), ['connector', 'fields.id.kind', 'fields.id.min', 'total_rows', 'follow']);
  assert.deepEqual(y.ast.suppressions.map((x) => x.code), ['some-lint']);
  assert.ok(y.ast.suppressions[0]!.span.start.offset < src.span.start.offset);
});

/** Specs of the repository that parse cleanly and can be one YAML document (unique names). */
function sqlSpecs(): string[] {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const out: string[] = [];
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.pipe.sql')) out.push(p);
    }
  };
  for (const d of ['specs', 'test/golden/cases', 'test/fixtures/yaml']) walk(join(root, d));
  return out;
}

function booleanCaseFree(v: unknown): unknown {
  return JSON.parse(JSON.stringify(withoutSpans(v)), (_k, x: unknown) => {
    const o = x as { kind?: string; raw?: string };
    return o && typeof o === 'object' && o.kind === 'boolean' && typeof o.raw === 'string' ? { ...o, raw: o.raw.toLowerCase() } : x;
  });
}

function representable(ast: PipeFile): boolean {
  const names = ast.statements.filter((s) => s.kind !== 'pipeline').map((s) => `${s.kind}:${s.name.name}`);
  return new Set(names).size === names.length && ast.statements.filter((s) => s.kind === 'pipeline').length <= 1;
}

test('sql → yaml → sql → yaml gives the first yaml back, for every clean spec in the repository', () => {
  let checked = 0;
  for (const path of sqlSpecs()) {
    const s = parseSql(readFileSync(path, 'utf8'), KEEP, path);
    if (s.diags.length > 0 || !representable(s.ast)) continue;
    const y1 = formatYaml(s.ast);
    const y = parseYaml(y1, KEEP, 'a.pipe.yaml');
    assert.deepEqual(y.diags, [], `${path}: the generated YAML has errors\n${y1}`);
    const sql1 = formatSql(y.ast);
    const s2 = parseSql(sql1, KEEP, 'b.pipe.sql');
    assert.deepEqual(s2.diags, [], `${path}: the SQL printed from YAML has errors`);
    // YAML → SQL loses nothing: the SQL re-read is the YAML's AST (a boolean's raw text differs
    // only in letter case, TRUE vs true, which is how each form writes it).
    assert.deepEqual(booleanCaseFree(s2.ast.statements), booleanCaseFree(y.ast.statements), path);
    assert.equal(formatYaml(s2.ast), y1, path);
    checked++;
  }
  assert.ok(checked >= 5, `only ${checked} specs checked`);
});

test('formatting YAML is idempotent on the YAML fixtures and specs', () => {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  const files = ['test/fixtures/yaml/language-example.pipe.yaml', 'test/fixtures/yaml/full.pipe.yaml', 'specs/iot_sensors.pipe.yaml'];
  for (const f of files) {
    const p = join(root, f);
    if (!existsSync(p)) continue;
    const first = parseYaml(readFileSync(p, 'utf8'), KEEP);
    assert.deepEqual(first.diags, [], f);
    const y1 = formatYaml(first.ast);
    const again = parseYaml(y1, KEEP);
    assert.deepEqual(again.diags, [], f);
    assert.equal(formatYaml(again.ast), y1, f);
    assert.deepEqual(withoutSpans(again.ast.statements.map((s) => s.kind)), withoutSpans(first.ast.statements.map((s) => s.kind)));
  }
});

test('option values keep their text through YAML: long integers, trailing zeros, ${VAR}', () => {
  const sql = "CREATE CATALOG c WITH (type = 'rest', uri = '${CAT_URI}', big = 12345678901234567890, ratio = 0.50, neg = -3);\n";
  const y1 = formatYaml(parseSql(sql, KEEP).ast);
  assert.equal(y1, 'catalogs:\n  c:\n    type: rest\n    uri: ${CAT_URI}\n    big: 12345678901234567890\n    ratio: 0.50\n    neg: -3\n');
  const back = parseYaml(y1, { CAT_URI: 'http://x' });
  const opts = back.ast.statements[0]!.kind === 'catalog' ? back.ast.statements[0]!.options : [];
  assert.deepEqual(opts.map((o) => [o.key, o.value.kind, o.value.text]), [
    ['type', 'string', 'rest'],
    ['uri', 'string', 'http://x'],
    ['big', 'number', '12345678901234567890'],
    ['ratio', 'number', '0.50'],
    ['neg', 'number', '-3'],
  ]);
});

/** mulberry32, seeded so a failure reproduces. */
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

function mutate(text: string, next: () => number, alphabet: string): string {
  const at = Math.floor(next() * (text.length + 1));
  const ch = alphabet[Math.floor(next() * alphabet.length)]!;
  const op = next();
  if (op < 0.33) return text.slice(0, at) + text.slice(at + 1);
  if (op < 0.66) return text.slice(0, at) + ch + text.slice(at);
  return text.slice(0, at) + ch + text.slice(at + 1);
}

test('fuzzed round trips: every edited fixture that still parses formats to a fixpoint', () => {
  const next = rng(4242);
  let yamlChecked = 0;
  let sqlChecked = 0;
  for (let n = 0; n < 200; n++) {
    const y = parseYaml(mutate(fixture(n % 2 ? 'full.pipe.yaml' : 'language-example.pipe.yaml'), next, ' \n:-[]{}|>\'"#,abcxyz019_'), KEEP);
    if (y.diags.length > 0) continue;
    const y1 = formatYaml(y.ast);
    const again = parseYaml(y1, KEEP);
    assert.deepEqual(again.diags, [], y1);
    assert.equal(formatYaml(again.ast), y1);
    yamlChecked++;
  }
  for (let n = 0; n < 200; n++) {
    const s = parseSql(mutate(fixture(n % 2 ? 'full.pipe.sql' : 'language-example.pipe.sql'), next, " \n(),;'=-abcxyz019_"), KEEP);
    if (s.diags.length > 0 || !representable(s.ast)) continue;
    const y1 = formatYaml(s.ast);
    const y = parseYaml(y1, KEEP);
    assert.deepEqual(y.diags, [], y1);
    const back = parseSql(formatSql(y.ast), KEEP);
    assert.deepEqual(back.diags, []);
    assert.equal(formatYaml(back.ast), y1);
    sqlChecked++;
  }
  // Most single edits break the file; enough of them survive to make this mean something.
  assert.ok(yamlChecked >= 50 && sqlChecked >= 30, `checked ${yamlChecked} yaml, ${sqlChecked} sql`);
});

test('string option values that look like other YAML values stay strings through YAML', () => {
  const tricky = ['true', 'no', 'null', '~', '', '0x10', '1e3', '.5', '007', '2026-01-01', ' padded ', 'a: b', 'x #y', '- item', '[a]', '{b}', "it's", '"q"', '*alias', '&anchor', '!tag', '%pct', '@at', '`tick`', '|', '>', '?', 'a,b'];
  const sql = `CREATE CATALOG c WITH (${tricky.map((t, i) => `k${i} = '${t.replace(/'/g, "''")}'`).join(', ')});\n`;
  const s = parseSql(sql, KEEP);
  assert.deepEqual(s.diags, []);
  const y = parseYaml(formatYaml(s.ast), KEEP);
  assert.deepEqual(y.diags, []);
  const st = y.ast.statements[0]!;
  assert.ok(st.kind === 'catalog');
  assert.deepEqual(st.options.map((o) => [o.value.kind, o.value.raw]), tricky.map((t) => ['string', t]));
});
