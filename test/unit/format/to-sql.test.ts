// `pipec fmt` for .pipe.sql: canonical text (checked against hand-written output), idempotence,
// the same tree after a round trip, ${VAR} kept as written, minimal quoting and parentheses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipeSql, parseSqlExpr } from '../../../src/syntax/sql/index.ts';
import { formatSql } from '../../../src/syntax/format/to-sql.ts';
import { expr as formatExpr } from '../../../src/syntax/format/to-sql-expr.ts';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import type { FrontEndContext } from '../../../src/syntax/front-end.ts';
import { fixture, FIXTURE_NAMES } from '../grammar/helpers.ts';

/** Variables resolve to something else than their name, to prove fmt keeps the raw text. */
const ctx = (): FrontEndContext & { diagnostics: DiagnosticBag } => ({
  file: 'fmt.pipe.sql',
  env: { get: (n) => `value-of-${n}` },
  diagnostics: new DiagnosticBag(),
});

function fmt(text: string): string {
  const c = ctx();
  const out = formatSql(parsePipeSql(text, c));
  assert.deepEqual(c.diagnostics.items.map((d) => d.message), [], text);
  return out;
}

/**
 * The tree without spans. fmt may change how a thing was spelled but not what it means: a
 * boolean's raw spelling (false → FALSE) and whether a name was quoted ("ts" → ts).
 */
function tree(text: string): unknown {
  const f = parsePipeSql(text, ctx());
  return JSON.parse(
    JSON.stringify(f.statements, (k, v) => {
      if (k === 'span' || k === 'keySpan' || k === 'typeSpan' || k === 'quoted') return undefined;
      if (v && typeof v === 'object' && v.kind === 'boolean' && typeof v.raw === 'string') return { ...v, raw: v.raw.toLowerCase() };
      return v;
    }),
  );
}

test('formatting is idempotent and keeps the tree, on every fixture', () => {
  for (const name of FIXTURE_NAMES) {
    const src = fixture(name);
    const once = fmt(src);
    assert.equal(fmt(once), once, name);
    assert.deepEqual(tree(once), tree(src), name);
  }
});

test('the LANGUAGE.md view prints in canonical form', () => {
  assert.equal(
    fmt(fixture('view-window.pipe.sql')),
    [
      'CREATE VIEW revenue_1m AS',
      'SELECT customer_id, window_start, window_end, SUM(amount) AS revenue, COUNT(*) AS orders',
      "FROM TUMBLE(orders, order_ts, INTERVAL '1' MINUTE)",
      'WHERE amount > 0',
      'GROUP BY customer_id, window_start, window_end',
      'EMIT ON WINDOW CLOSE',
      "ALLOWED LATENESS INTERVAL '30' SECOND",
      'ON LATE TO orders_late;  -- or ON LATE DROP',
      '',
    ].join('\n'),
  );
});

test("SESSION's partition columns print as Flink writes them: one bare, several in parentheses", () => {
  const view = (from: string): string => `CREATE VIEW v AS SELECT COUNT(*) AS c FROM ${from} GROUP BY window_start, window_end EMIT ON WINDOW CLOSE ON LATE DROP;`;
  const fromLine = (text: string): string => fmt(text).split('\n').find((l) => l.startsWith('FROM'))!;
  const long = "FROM TABLE(SESSION(TABLE t PARTITION BY (a, b), DESCRIPTOR(ts), INTERVAL '3' SECOND))";
  assert.equal(fromLine(view("TABLE(SESSION(TABLE t PARTITION BY (a, b), DESCRIPTOR(ts), INTERVAL '3' SECOND))")), long);
  assert.equal(fromLine(view("TABLE(SESSION(TABLE t PARTITION BY a, b, DESCRIPTOR(ts), INTERVAL '3' SECOND))")), long);
  assert.equal(fromLine(view("SESSION(t PARTITION BY a, b, ts, INTERVAL '3' SECOND)")), "FROM SESSION(t PARTITION BY (a, b), ts, INTERVAL '3' SECOND)");
  assert.equal(fromLine(view("SESSION(t PARTITION BY (a), ts, INTERVAL '3' SECOND)")), "FROM SESSION(t PARTITION BY a, ts, INTERVAL '3' SECOND)");
  const once = fmt(view("SESSION(t PARTITION BY a, b, ts, INTERVAL '3' SECOND)"));
  assert.equal(fmt(once), once);
  assert.deepEqual(tree(once), tree(view("SESSION(t PARTITION BY a, b, ts, INTERVAL '3' SECOND)")));
});

test('sources: aligned columns, watermark and key last, one option per line, ${VAR} kept', () => {
  const src = `create source Orders (ID bigint not null, "Total Amount" decimal(12,2), ts timestamp(3),
    primary key (id) not enforced, watermark for ts as ts - interval '5' second)
    with (connector='postgres-cdc', dsn='\${PG_DSN}', snapshot='initial', fields.id.kind='sequence', retries=3, follow=false);`;
  assert.equal(
    fmt(src),
    [
      'CREATE SOURCE orders (',
      '  id             BIGINT NOT NULL,',
      '  "Total Amount" DECIMAL(12, 2),',
      '  ts             TIMESTAMP(3),',
      "  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND,",
      '  PRIMARY KEY (id) NOT ENFORCED',
      ') WITH (',
      // Keys are padded to the longest one, fields.id.kind (14 characters).
      "  connector      = 'postgres-cdc',",
      "  dsn            = '${PG_DSN}',",
      "  snapshot       = 'initial',",
      "  fields.id.kind = 'sequence',",
      '  retries        = 3,',
      '  follow         = false',
      ');',
      '',
    ].join('\n'),
  );
});

test('sinks, catalogs, compaction and suppressions print back', () => {
  const src = `-- pipec:allow no-late-policy
create sink Alerts as select * from v where x > 1 with (connector = 'kafka', topic = 'a');
CREATE CATALOG lake WITH (type = 'filesystem');
CREATE COMPACTION POLICY p ON lake_sink (REWRITE DELETE FILES WHERE delete_ratio > 25 PERCENT, REMOVE ORPHAN FILES OLDER THAN INTERVAL '3 d');`;
  assert.equal(
    fmt(src),
    [
      '-- pipec:allow no-late-policy',
      'CREATE SINK alerts AS',
      'SELECT *',
      'FROM v',
      'WHERE x > 1',
      'WITH (',
      "  connector = 'kafka',",
      "  topic     = 'a'",
      ');',
      '',
      'CREATE CATALOG lake WITH (',
      "  type = 'filesystem'",
      ');',
      '',
      'CREATE COMPACTION POLICY p ON lake_sink (',
      '  REWRITE DELETE FILES WHERE delete_ratio > 25 PERCENT,',
      "  REMOVE ORPHAN FILES OLDER THAN INTERVAL '3 d'",
      ');',
      '',
    ].join('\n'),
  );
});

test('identifiers are quoted only when needed', () => {
  const out = fmt('CREATE VIEW "MixedCase" AS SELECT "plain", "select", "has space", "a""b", Upper FROM "t";');
  assert.equal(out, 'CREATE VIEW "MixedCase" AS\nSELECT plain, "select", "has space", "a""b", upper\nFROM t;\n');
});

test('expressions get exactly the parentheses their tree needs', () => {
  const cases: [string, string][] = [
    ['(a + b) * c', '(a + b) * c'],
    ['a + (b * c)', 'a + b * c'],
    ['a - (b - c)', 'a - (b - c)'],
    ['(a - b) - c', 'a - b - c'],
    ['-(-1)', '-(-1)'],
    ['- (a + b)', '-(a + b)'],
    ['NOT (a AND b)', 'NOT (a AND b)'],
    ['(NOT a) AND b', 'NOT a AND b'],
    ['(a OR b) AND c', '(a OR b) AND c'],
    ['(a = b) = c', '(a = b) = c'],
    ['(a + 1) IS NULL', 'a + 1 IS NULL'],
    ['x BETWEEN (a OR b) AND c', 'x BETWEEN (a OR b) AND c'],
    ["trim(both from s) || substring(s from 1 for 2)", 'TRIM(s) || SUBSTRING(s, 1, 2)'],
    ["case when a then 'x''y' end", "CASE WHEN a THEN 'x''y' END"],
    ['cast(a as row<x int, "Y" string not null>)', 'CAST(a AS ROW<x INT, "Y" STRING NOT NULL>)'],
    ["floor(ts to minute) + interval '5 seconds'", "FLOOR(ts TO MINUTE) + INTERVAL '5 seconds'"],
    ['count(distinct a) + count(*)', 'COUNT(DISTINCT a) + COUNT(*)'],
  ];
  for (const [src, want] of cases) {
    const c = ctx();
    const e = parseSqlExpr(src, c);
    assert.ok(e, src);
    const out = formatExpr(e);
    assert.equal(out, want, src);
    // And the printed text reads back as the same tree.
    const back = parseSqlExpr(out, ctx());
    assert.deepEqual(JSON.parse(JSON.stringify(back, (k, v) => (k.endsWith('pan') ? undefined : v))), JSON.parse(JSON.stringify(e, (k, v) => (k.endsWith('pan') ? undefined : v))), src);
  }
});

test('long select lists go one item per line', () => {
  const cols = Array.from({ length: 12 }, (_, i) => `column_number_${i}`);
  const out = fmt(`CREATE VIEW v AS SELECT ${cols.join(', ')} FROM t;`);
  assert.equal(out, `CREATE VIEW v AS\nSELECT\n${cols.map((c) => `  ${c}`).join(',\n')}\nFROM t;\n`);
});

test('comments survive formatting: trailing (aligned), continued, between items, above and after statements', () => {
  const src = `-- header
PIPELINE p;   -- optional

-- pipec:allow no-late-policy
CREATE SOURCE s (
  a INT,            -- first
  -- about b
  b STRING
) WITH (
  schema = 'x',     -- or 'file:a.avsc',
                    --    'file:b.proto#B'
  format = 'avro' -- or json
);
CREATE VIEW v AS SELECT a /* inline */ FROM s;
/* the end */
`;
  const want = `-- header
PIPELINE p;  -- optional

-- pipec:allow no-late-policy
CREATE SOURCE s (
  a INT,  -- first
  -- about b
  b STRING
) WITH (
  schema = 'x',    -- or 'file:a.avsc',
                   --    'file:b.proto#B'
  format = 'avro'  -- or json
);

/* inline */
CREATE VIEW v AS
SELECT a
FROM s;

/* the end */
`;
  const once = fmt(src);
  assert.equal(once, want);
  assert.equal(fmt(once), once);
});
