// Expressions: operator precedence, literals, the special call forms and identifier rules.
// Trees are compared as S-expressions written by hand (an independent printer, not the formatter).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipeSql, parseSqlExpr, parseSqlQuery } from '../../../src/syntax/sql/index.ts';
import type { Expr, SelectQuery } from '../../../src/syntax/ast.ts';
import { LineMap } from '../../../src/diagnostics/span.ts';
import { at, makeCtx, strip } from './helpers.ts';

/** A compact S-expression of a tree; literals print as written. */
function sx(e: Expr): string {
  switch (e.kind) {
    case 'column':
      return (e.qualifier ? `${e.qualifier.name}.` : '') + e.name.name;
    case 'number':
      return e.text;
    case 'string':
      return `'${e.value}'`;
    case 'boolean':
      return String(e.value);
    case 'null':
      return 'null';
    case 'interval':
      return `(interval ${e.ms})`;
    case 'typed_literal':
      return `(${e.type} ${e.value})`;
    case 'binary':
      return `(${e.op} ${sx(e.left)} ${sx(e.right)})`;
    case 'unary':
      return `(${e.op === '-' ? 'neg' : 'not'} ${sx(e.operand)})`;
    case 'is_null':
      return `(${e.negated ? 'notnull' : 'isnull'} ${sx(e.operand)})`;
    case 'in':
      return `(${e.negated ? 'notin' : 'in'} ${sx(e.operand)} ${e.list.map(sx).join(' ')})`;
    case 'between':
      return `(${e.negated ? 'notbetween' : 'between'} ${sx(e.operand)} ${sx(e.low)} ${sx(e.high)})`;
    case 'like':
      return `(${e.negated ? 'notlike' : 'like'} ${sx(e.operand)} ${sx(e.pattern)})`;
    case 'case':
      return `(case${e.operand ? ` ${sx(e.operand)}` : ''} ${e.whens.map((w) => `[${sx(w.when)} ${sx(w.then)}]`).join(' ')}${e.else ? ` else ${sx(e.else)}` : ''})`;
    case 'cast':
      return `(cast ${sx(e.operand)} ${e.type.kind})`;
    case 'call':
      return `(${e.name.name}${e.distinct ? ' distinct' : ''}${e.star ? ' *' : ''}${e.args.map((a) => ` ${sx(a)}`).join('')})`;
    case 'extract':
      return `(extract ${e.unit} ${sx(e.operand)})`;
    case 'floor_to':
      return `(${e.ceil ? 'ceil' : 'floor'} ${sx(e.operand)} ${e.unit})`;
    case 'timestampadd':
      return `(timestampadd ${e.unit} ${sx(e.amount)} ${sx(e.operand)})`;
    case 'trim':
      return `(trim ${e.side}${e.chars ? ` ${sx(e.chars)}` : ''} ${sx(e.operand)})`;
  }
}

function parse(text: string, env: Record<string, string> = {}): string {
  const ctx = makeCtx(env);
  const e = parseSqlExpr(text, ctx);
  assert.deepEqual(ctx.diagnostics.items.map((d) => d.message), [], text);
  assert.ok(e, text);
  return sx(e);
}

test('precedence: OR < AND < NOT < comparison < + - || < * / % < unary minus', () => {
  const cases: [string, string][] = [
    ['a OR b AND c', '(or a (and b c))'],
    ['a AND b OR c', '(or (and a b) c)'],
    ['NOT a = b AND c', '(and (not (= a b)) c)'],
    ['NOT a AND b', '(and (not a) b)'],
    ['NOT NOT a', '(not (not a))'],
    ['a + b * c - d', '(- (+ a (* b c)) d)'],
    ['a - b - c', '(- (- a b) c)'],
    ['a / b % c', '(% (/ a b) c)'],
    ['-a * b', '(* (neg a) b)'],
    ['a * -b', '(* a (neg b))'],
    ['-(a + b)', '(neg (+ a b))'],
    ['- -1', '(neg (neg 1))'],
    ['+a', 'a'],
    ["a || 'x' = b", "(= (|| a 'x') b)"],
    ['a || b + c', '(+ (|| a b) c)'],
    ['a = 1 OR NOT b <> 2', '(or (= a 1) (not (<> b 2)))'],
    ['a < b AND c >= d', '(and (< a b) (>= c d))'],
    ['(a OR b) AND c', '(and (or a b) c)'],
    ['a * (b + c)', '(* a (+ b c))'],
    ['a != b', '(<> a b)'],
  ];
  for (const [text, want] of cases) assert.equal(parse(text), want, text);
});

test('predicates bind looser than arithmetic and tighter than NOT/AND', () => {
  const cases: [string, string][] = [
    ['a + 1 IS NULL', '(isnull (+ a 1))'],
    ['NOT a IS NULL', '(not (isnull a))'],
    ['a IS NOT NULL AND b IS NULL', '(and (notnull a) (isnull b))'],
    ['x BETWEEN 1 AND 2 AND y', '(and (between x 1 2) y)'],
    ['x NOT BETWEEN a - 1 AND a + 1', '(notbetween x (- a 1) (+ a 1))'],
    ["a IN (1, 2) OR b LIKE 'x%'", "(or (in a 1 2) (like b 'x%'))"],
    ['a NOT IN (1 + 1, b)', '(notin a (+ 1 1) b)'],
    ["s NOT LIKE 'a' || '%'", "(notlike s (|| 'a' '%'))"],
    ['a.ts BETWEEN b.ts - INTERVAL \'5\' MINUTE AND b.ts', '(between a.ts (- b.ts (interval 300000)) b.ts)'],
  ];
  for (const [text, want] of cases) assert.equal(parse(text), want, text);
});

test('literals: numbers, strings with quote escapes, booleans, NULL, typed literals', () => {
  assert.equal(parse('12.50'), '12.50');
  assert.equal(parse('1e3'), '1e3');
  assert.equal(parse("'it''s'"), "'it's'");
  assert.equal(parse('TRUE AND false'), '(and true false)');
  assert.equal(parse('NULL'), 'null');
  assert.equal(parse("TIMESTAMP '2024-01-01 00:00:00'"), '(timestamp 2024-01-01 00:00:00)');
  assert.equal(parse("DATE '2024-01-01'"), '(date 2024-01-01)');
});

test('intervals: both spellings, every fixed unit, month/year with ms 0', () => {
  const ms = (text: string): unknown => {
    const ctx = makeCtx();
    const e = parseSqlExpr(text, ctx);
    assert.deepEqual(ctx.diagnostics.items, [], text);
    return e?.kind === 'interval' ? [e.ms, e.unit, e.text] : e?.kind;
  };
  assert.deepEqual(ms("INTERVAL '5' SECOND"), [5_000, 'second', '5']);
  assert.deepEqual(ms("INTERVAL '1' MINUTE"), [60_000, 'minute', '1']);
  assert.deepEqual(ms("INTERVAL '2' HOUR"), [7_200_000, 'hour', '2']);
  assert.deepEqual(ms("INTERVAL '7' DAY"), [604_800_000, 'day', '7']);
  assert.deepEqual(ms("INTERVAL '1' WEEK"), [604_800_000, 'week', '1']);
  assert.deepEqual(ms("INTERVAL '250' MILLISECOND"), [250, 'millisecond', '250']);
  assert.deepEqual(ms("INTERVAL '1.5' SECOND"), [1_500, 'second', '1.5']);
  assert.deepEqual(ms("INTERVAL '5 seconds'"), [5_000, null, '5 seconds']);
  assert.deepEqual(ms("INTERVAL '30s'"), [30_000, null, '30s']);
  assert.deepEqual(ms("INTERVAL '1 h'"), [3_600_000, null, '1 h']);
  assert.deepEqual(ms("INTERVAL '1' MONTH"), [0, 'month', '1']);
  assert.deepEqual(ms("INTERVAL '2' YEAR"), [0, 'year', '2']);
  const ctx = makeCtx();
  parseSqlExpr("INTERVAL 'soon'", ctx);
  assert.deepEqual(ctx.diagnostics.items.map((d) => d.code), ['syntax-bad-interval']);
});

test('CASE (both forms), CAST, EXTRACT, FLOOR/CEIL TO, TIMESTAMPADD, SUBSTRING, TRIM, COUNT forms', () => {
  const cases: [string, string][] = [
    ["CASE WHEN a > 1 THEN 'x' WHEN a > 0 THEN 'y' ELSE 'z' END", "(case [(> a 1) 'x'] [(> a 0) 'y'] else 'z')"],
    ["CASE status WHEN 1 THEN 'on' END", "(case status [1 'on'])"],
    ['CAST(amount AS DECIMAL(10, 2))', '(cast amount decimal)'],
    ['EXTRACT(YEAR FROM ts)', '(extract year ts)'],
    ['FLOOR(ts TO MINUTE)', '(floor ts minute)'],
    ['CEIL(ts TO HOUR)', '(ceil ts hour)'],
    ['floor(x)', '(floor x)'],
    ['TIMESTAMPADD(MINUTE, 5, ts)', '(timestampadd minute 5 ts)'],
    ['SUBSTRING(s FROM 2 FOR 3)', '(substring s 2 3)'],
    ['SUBSTRING(s FROM 2)', '(substring s 2)'],
    ['SUBSTRING(s, 2, 3)', '(substring s 2 3)'],
    ["TRIM(BOTH ' ' FROM s)", "(trim both ' ' s)"],
    ['TRIM(LEADING FROM s)', '(trim leading s)'],
    ["TRIM(TRAILING 'x' FROM s)", "(trim trailing 'x' s)"],
    ['TRIM(s)', '(trim both s)'],
    ['COUNT(*)', '(count *)'],
    ['COUNT(DISTINCT user_id)', '(count distinct user_id)'],
    ['TO_TIMESTAMP_LTZ(ms, 3)', '(to_timestamp_ltz ms 3)'],
    ['NOW()', '(now)'],
    ["JSON_VALUE(payload, '$.a')", "(json_value payload '$.a')"],
  ];
  for (const [text, want] of cases) assert.equal(parse(text), want, text);
});

test('special call forms on the wrong function are reported', () => {
  const ctx = makeCtx();
  parseSqlExpr('SUM(x TO MINUTE) + LOWER(BOTH FROM s) + a.b(1)', ctx);
  assert.deepEqual(ctx.diagnostics.items.map((d) => d.code), ['syntax-bad-call-form', 'syntax-bad-call-form', 'syntax-qualified-function']);
});

test('identifiers fold to lower case unless quoted; "" escapes a quote', () => {
  assert.equal(parse('Customer_ID'), 'customer_id');
  const ctx = makeCtx();
  const e = parseSqlExpr('"Order ""Id""" + O.Amount', ctx);
  assert.ok(e?.kind === 'binary' && e.left.kind === 'column' && e.right.kind === 'column');
  if (e?.kind === 'binary' && e.left.kind === 'column' && e.right.kind === 'column') {
    assert.deepEqual(strip(e.left.name), { name: 'Order "Id"', quoted: true });
    assert.deepEqual(strip(e.right.qualifier), { name: 'o', quoted: false });
  }
});

test('soft keywords work as column names and aliases', () => {
  const ctx = makeCtx();
  const q = parseSqlQuery(
    'SELECT key, value, timestamp, date, count, window_start, session, data, source AS view, t.key key2 FROM topic AS t WHERE key IS NOT NULL',
    ctx,
  ) as SelectQuery;
  assert.deepEqual(ctx.diagnostics.items, []);
  assert.deepEqual(
    q.items.map((i) => (i.kind === 'expr' ? `${i.expr.kind === 'column' ? i.expr.name.name : '?'}${i.alias ? `>${i.alias.name}` : ''}` : '*')),
    ['key', 'value', 'timestamp', 'date', 'count', 'window_start', 'session', 'data', 'source>view', 'key>key2'],
  );
});

test('ORDER, LIMIT, RIGHT... stay names, but are not taken as an alias without AS', () => {
  const ok = makeCtx();
  const q = parseSqlQuery('SELECT order, limit AS right FROM order AS limit', ok) as SelectQuery;
  assert.deepEqual(ok.diagnostics.items, []);
  assert.equal(q.from.kind === 'table' && q.from.alias?.name, 'limit');
  const bad = makeCtx();
  assert.equal(parseSqlQuery('SELECT a FROM t LIMIT 5', bad), null);
  assert.deepEqual(bad.diagnostics.items.map((d) => d.code), ['syntax-unsupported']);
});

test('comments are skipped; a string literal keeps ${VAR} as written and warns (no substitution in queries)', () => {
  const ctx = makeCtx({ REGION: 'eu' });
  const e = parseSqlExpr("/* block */ region = '${REGION}-1' -- trailing", ctx);
  assert.ok(e?.kind === 'binary' && e.right.kind === 'string');
  if (e?.kind === 'binary' && e.right.kind === 'string') {
    assert.deepEqual(strip(e.right), { kind: 'string', value: '${REGION}-1', raw: '${REGION}-1' });
  }
  // One warning on the literal (columns 22-35), naming the variable that was not substituted.
  assert.deepEqual(
    ctx.diagnostics.items.map((d) => `${d.severity} ${d.code} ${d.params['name']} ${at(d.span)}`),
    ['warning env-in-sql-literal REGION 1:22-1:35'],
  );
});

test('-- pipec:allow comments become suppressions with the span of each code', () => {
  const ctx = makeCtx();
  const f = parsePipeSql("-- pipec:allow no-late-policy, unbounded-state\nCREATE SINK s WITH (connector = 'stdout');\n--pipec:allow x-y\n", ctx);
  assert.deepEqual(f.suppressions.map((s) => `${s.code} ${at(s.span)}`), ['no-late-policy 1:16-1:30', 'unbounded-state 1:32-1:47', 'x-y 3:15-3:18']);
});

/** A fragment whose lines sit in `file` at the given offsets (as a YAML block scalar would). */
function origin(file: string, fragment: string, lineStarts: number[]) {
  const fragStarts = [0];
  for (let i = 0; i < fragment.length; i++) if (fragment[i] === '\n') fragStarts.push(i + 1);
  return {
    lineMap: new LineMap(file),
    mapOffset: (o: number) => {
      let line = 0;
      while (line + 1 < fragStarts.length && fragStarts[line + 1]! <= o) line++;
      return lineStarts[line]! + (o - fragStarts[line]!);
    },
  };
}

test('fragments map their spans through the FragmentOrigin', () => {
  // The query sits in a YAML block scalar, indented by 6 on lines 3 and 4 of the file.
  const yaml = 'views:\n  v:\n      SELECT a,\n      FROM t\n';
  const starts = [yaml.indexOf('SELECT'), yaml.indexOf('FROM')];
  const bad = 'SELECT a,\nFROM t';
  const ctx = makeCtx({}, 'p.pipe.yaml');
  assert.equal(parseSqlQuery(bad, ctx, origin(yaml, bad, starts)), null);
  assert.deepEqual(
    ctx.diagnostics.items.map((x) => `${x.code} ${x.span.file} ${x.span.start.line}:${x.span.start.column}`),
    ['syntax-trailing-comma p.pipe.yaml 3:15'],
  );
  const good = 'SELECT a\nFROM t;';
  const ok = makeCtx({}, 'p.pipe.yaml');
  const q = parseSqlQuery(good, ok, origin(yaml, good, starts)) as SelectQuery;
  assert.deepEqual(ok.diagnostics.items, []);
  assert.equal(q.from.kind === 'table' && at(q.from.span), '4:12-4:13');
});
