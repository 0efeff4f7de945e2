// Property test (issue 12 item 1, issue 21 item 1): seeded random names drawn from every
// character class that can break generated text — line/paragraph separators, controls, NUL,
// quotes, backticks, backslashes, `*/`, `${`, `--`, `;`, lone surrogates, bidi marks, emoji —
// for every kind of name (pipeline, source, column, view, alias, sink, catalog, table, policy,
// topic, literal). Each spec is built to every target in memory and the outputs are PARSED:
// JS with esbuild and by loading it (no payload runs, every name reads back exactly), the
// ClickHouse DDL split by sqlparse and parsed by chdb (EXPLAIN AST) with as many statements as
// the same spec with plain names, the Spark SQL with a lexer written from Spark's grammar plus
// sqlparse's splitting (one CALL per action, catalog and table read back exactly), plan.txt
// line for line, every JSON file, the generated YAML read back with an independent parser, and
// `fmt --to yaml` output parsed and compiled again.
// PIPEC_HOSTILE_TRIALS sets the count (default 20; each builds the esbuild bundle, ~3 s).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { transformSync } from 'esbuild';
import { parseAllDocuments, parseDocument } from 'yaml';
import { prng } from './mutate.ts';
import { buildInMemory, type HostileBuild } from '../unit/security/hostile-build.ts';
import { generateBody } from '../../targets/runtime/codegen/module.ts';
import { instantiateBody } from '../../targets/runtime/instantiate-body.ts';
import { formatYaml } from '../../src/syntax/format/to-yaml.ts';
import { lookupCode } from '../../src/diagnostics/registry.ts';
import { UNSAFE_CHARS } from '../../src/util/unsafe-text.ts';
import { sparkMultipartParts, sparkStatements } from '../support/spark-sql-lexer.ts';
import { runPythonHelper } from '../support/venv.ts';
import { clickhouseStatements, statementHead } from '../support/clickhouse-sql-split.ts';
import { GOLDEN_ENV } from '../golden/golden-harness.ts';

const trials = Number(process.env.PIPEC_HOSTILE_TRIALS ?? 20);

const FRAGMENTS = [
  'a', 'Z', '9', '_', ' ', '"', "'", '`', '``', '\\', '\\\\', '*/', '/*', '${', '${X}', '--', ';', '#', '.', '/',
  '\u2028', '\u2029', '\u0085', '\u0001', '\u001b[2J', '\t', '\u007f', '\u009b',
  '\ud800', '\udfff', '\udbff', '\u202e', '\u202d', '\u200f', '\u2066', '\u061c', '\ufeff',
  '😀', '👩‍💻', 'é', 'ß', 'Ω', 'ж', '中', 'ـ', '\u0301',
  '\u2028globalThis.__pipecPwned = 1;//',
  '"); globalThis.__pipecPwned = 1; ("',
  "'); DROP TABLE prod.orders; --",
  '`; DROP TABLE prod.orders; --',
];

/**
 * `tag` plus 1–6 random fragments. In option values (`inValue`) `${` stays out: there it is the
 * documented `${VAR}` substitution, not a name character.
 */
function randomName(rnd: () => number, tag: string, opts: { noDot: boolean; inValue: boolean }): string {
  let s = tag;
  const n = 1 + Math.floor(rnd() * 6);
  for (let i = 0; i < n; i++) {
    let f = FRAGMENTS[Math.floor(rnd() * FRAGMENTS.length)]!;
    // Table names: parts hold no dot and no white space (the checker refuses it in Iceberg
    // tables and trims it from ClickHouse ones).
    if (opts.noDot) f = f.replace(/[.\s]/g, '_');
    if (opts.inValue) f = f.replace(/\$\{/g, '$');
    s += f;
  }
  // Option values are trimmed (String.trim: white space and BOM) before they name a catalog.
  return opts.inValue ? s + '~' : s;
}

const qi = (s: string): string => `"${s.replace(/"/g, '""')}"`;
const qs = (s: string): string => `'${s.replace(/'/g, "''")}'`;

type Names = Record<'pipeline' | 'source' | 'column' | 'column2' | 'view' | 'alias' | 'chSink' | 'iceSink' | 'catalog' | 'db' | 'chTable' | 'ns' | 'table' | 'policy' | 'topic' | 'literal', string>;

function spec(n: Names): string {
  return `PIPELINE ${qi(n.pipeline)};
CREATE SOURCE ${qi(n.source)} (${qi(n.column)} BIGINT, ${qi(n.column2)} STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH (connector = 'kafka', topic = ${qs(n.topic)}, format = 'json', brokers = '\${PIPEC_KAFKA_BROKERS}');
CREATE VIEW ${qi(n.view)} AS
  SELECT ${qi(n.column)} AS ${qi(n.alias)}, window_start, window_end, COUNT(*) AS n
  FROM TUMBLE(${qi(n.source)}, ts, INTERVAL '1' MINUTE)
  WHERE ${qi(n.column2)} <> ${qs(n.literal)} AND ${qi(n.column2)} <> '\${PIPEC_FUZZ_SECRET}'
  GROUP BY ${qi(n.column)}, window_start, window_end
  EMIT ON WINDOW CLOSE ON LATE DROP;
CREATE CATALOG ${qi(n.catalog)} WITH (type = 'filesystem', warehouse = '\${PIPEC_WAREHOUSE}');
CREATE SINK ${qi(n.chSink)} FROM ${qi(n.view)} WITH (connector = 'clickhouse', url = '\${PIPEC_CLICKHOUSE_URL}', table = ${qs(`${n.db}.${n.chTable}`)});
CREATE SINK ${qi(n.iceSink)} FROM ${qi(n.view)} WITH (connector = 'iceberg', catalog = ${qs(n.catalog)}, table = ${qs(`${n.ns}.${n.table}`)});
CREATE COMPACTION POLICY ${qi(n.policy)} ON ${qi(n.iceSink)} (
  REWRITE DATA FILES WHERE file_size < '32 MB' TARGET '128 MB',
  EXPIRE SNAPSHOTS OLDER THAN INTERVAL '7' DAY RETAIN LAST 5,
  REMOVE ORPHAN FILES OLDER THAN INTERVAL '3' DAY
);
`;
}

const PLAIN: Names = {
  pipeline: 'p', source: 's', column: 'c', column2: 'c2', view: 'v', alias: 'a', chSink: 'k1', iceSink: 'k2', catalog: 'lake',
  db: 'db', chTable: 't1', ns: 'ns', table: 't2', policy: 'pol', topic: 'topic', literal: 'x',
};
/** Names `pipec build` uses as path segments (another check may refuse hostile ones). */
const PATH_KINDS = ['pipeline', 'iceSink', 'policy'] as const;

const countLines = (t: string): number => t.split(/\r\n|\r|\n|\u2028|\u2029|\u0085/).length;

function checkRuntime(b: HostileBuild, n: Names, where: string): void {
  for (const path of ['runtime/pipeline.gen.mjs', 'runtime/pipeline.mjs']) {
    const js = b.files.get(path)!;
    assert.ok(js, `${where}: no ${path}`);
    // Parses as a module, and no unsafe character is left raw anywhere (comments included):
    // names appear only in escaped form wherever they hold one.
    transformSync(js, { format: 'esm', loader: 'js' });
    // (The bundle holds the runtime library, whose own code has tabs and control characters.)
    const raw = path.endsWith('.gen.mjs') ? js.replace(/\n/g, '').match(UNSAFE_CHARS) : null;
    assert.equal(raw, null, `${where}: raw unsafe character ${JSON.stringify(raw?.[0])} in ${path}`);
    // (esbuild re-prints literals of the bundle its own way, e.g. as template literals.)
    if (path.endsWith('.gen.mjs')) {
      for (const name of Object.values(n)) {
        if (name.search(UNSAFE_CHARS) >= 0) assert.ok(!js.includes(name), `${where}: name ${JSON.stringify(name)} appears unescaped in ${path}`);
      }
    }
  }
  delete (globalThis as Record<string, unknown>).__pipecPwned;
  const def = instantiateBody(generateBody(b.plan!).body, { PIPEC_KAFKA_BROKERS: 'x', PIPEC_CLICKHOUSE_URL: 'http://x', PIPEC_WAREHOUSE: 'file:///x' });
  assert.equal((globalThis as Record<string, unknown>).__pipecPwned, undefined, `${where}: a payload in a name ran`);
  assert.equal(def.name, n.pipeline, where);
  assert.deepEqual(def.sources.map((s) => s.name), [n.source], where);
  assert.deepEqual(def.sources[0]!.columns.map((c) => c.name).sort(), [n.column, n.column2, 'ts'].sort(), where);
  assert.deepEqual(def.sinks.map((s) => s.name).sort(), [n.chSink, n.iceSink].sort(), where);
  const ice = def.sinks.find((s) => s.name === n.iceSink)!;
  assert.equal((ice as { iceberg?: { table: string; catalog: { name: string } } }).iceberg?.table, `${n.ns}.${n.table}`, where);
  assert.equal((ice as { iceberg?: { catalog: { name: string } } }).iceberg?.catalog.name, n.catalog, where);
  for (const s of def.sinks) assert.deepEqual(s.columns.map((c) => c.name), [n.alias, 'window_start', 'window_end', 'n'], where);
}

function checkSpark(b: HostileBuild, n: Names, where: string): string {
  const [path, sql] = [...b.files].find(([p]) => p.endsWith('.spark.sql'))!;
  const stmts = sparkStatements(sql);
  assert.equal(stmts.length, 3, `${where}: ${path}\n${sql}`);
  for (const st of stmts) {
    assert.deepEqual(st.slice(0, 5).map((t) => t.value), ['CALL', n.catalog, '.', 'system', '.'], `${where}: ${sql}`);
    const arg = st.findIndex((t) => t.value === '=>');
    assert.equal(st[arg + 1]!.kind, 'string', where);
    assert.deepEqual(sparkMultipartParts(st[arg + 1]!.value), [n.ns, n.table], `${where}: ${sql}`);
  }
  return sql;
}

/**
 * The generated YAML (alerts.yaml, flink/deployment.yaml), written with js-yaml, read back with
 * the `yaml` library (an independent parser): it parses strictly, no unsafe character is left
 * raw, and the names it holds read back exactly: the ConfigMap's script is flink/pipeline.sql
 * byte for byte, and each alert's source label is the source's name.
 */
function checkGeneratedYaml(b: HostileBuild, n: Names, where: string): void {
  const docsOf = (path: string): unknown[] => {
    const text = b.files.get(path);
    assert.ok(text, `${where}: no ${path}`);
    assert.equal(text.replace(/\n/g, '').match(UNSAFE_CHARS), null, `${where}: raw unsafe character in ${path}`);
    const docs = parseAllDocuments(text, { uniqueKeys: true, strict: true });
    assert.ok(Array.isArray(docs), `${where}: ${path} is empty`);
    for (const d of docs) assert.deepEqual([...d.errors, ...d.warnings].map((e) => e.message), [], `${where}: ${path} does not parse:\n${text}`);
    return docs.map((d) => d.toJS());
  };
  const [configMap, deployment] = docsOf('flink/deployment.yaml') as [{ data: Record<string, string> }, { kind: string; spec: { job: { parallelism: number } } }];
  assert.equal(configMap.data['pipeline.sql'], b.files.get('flink/pipeline.sql'), `${where}: the ConfigMap's pipeline.sql is not the script`);
  assert.equal(deployment.kind, 'FlinkDeployment', where);
  const [rules] = docsOf('alerts.yaml') as [{ spec: { groups: { name: string; rules: { labels: Record<string, string> }[] }[] } }];
  assert.equal(rules.spec.groups[0]!.name, `pipec.${n.pipeline}`, where);
  const sourceLabels = rules.spec.groups[0]!.rules.flatMap((r) => (r.labels.source === undefined ? [] : [r.labels.source]));
  assert.ok(sourceLabels.length > 0, `${where}: no alert names its source`);
  for (const label of sourceLabels) assert.equal(label, n.source, where);
}

function checkYaml(b: HostileBuild, where: string): string {
  const yamlText = formatYaml(b.ast);
  const doc = parseDocument(yamlText);
  assert.deepEqual(doc.errors.map((e) => e.message), [], `${where}: fmt --to yaml output does not parse:\n${yamlText}`);
  return yamlText;
}

test(`hostile names (${trials} seeded trials) never break generated JS, SQL, plan text, JSON or YAML`, { timeout: 900_000 }, async () => {
  const rnd = prng(20261201);
  const base = await buildInMemory(spec(PLAIN));
  assert.deepEqual(base.errors, []);
  const sqlScripts: Record<string, { sql: string; clickhouse: boolean; statements?: string[] }> = {};
  const baseHeads = clickhouseStatements(base.files.get('clickhouse.sql')!).map(statementHead);
  const baseLines = countLines(base.files.get('plan.txt')!);
  let refused = 0;
  let yamlRoundTrips = 0;
  for (let i = 0; i < trials; i++) {
    const n = {} as Names;
    for (const k of Object.keys(PLAIN) as (keyof Names)[]) {
      // Parts of dotted names (db.table, namespace.table) hold no dot of their own.
      const dotted = k === 'db' || k === 'chTable' || k === 'ns' || k === 'table';
      n[k] = randomName(rnd, `${k}${i}`, { noDot: dotted, inValue: dotted || k === 'catalog' || k === 'topic' || k === 'literal' });
    }
    // Secrets planted in the variables the spec names (issue 21): no value may reach any output.
    const secret = `s3cr3t${i}x${Math.floor(rnd() * 1e9)}`;
    const planted: Record<string, string> = { PIPEC_KAFKA_BROKERS: `kafka-${secret}:9092`, PIPEC_CLICKHOUSE_URL: `http://u:${secret}@ch:8123`, PIPEC_FUZZ_SECRET: secret };
    const env = { get: (name: string) => planted[name] ?? GOLDEN_ENV.get(name) };
    let b = await buildInMemory(spec(n), 'spec.pipe.sql', { env });
    if (b.errors.length > 0) {
      // A refusal must be a coded diagnostic; path-segment names may be refused (build output
      // paths): then the same trial runs with plain names in those places only.
      for (const e of b.errors) {
        const code = e.slice(0, e.indexOf(':'));
        assert.ok(lookupCode(code) && code !== 'internal-error', `trial ${i}: ${e}\n${spec(n)}`);
      }
      refused++;
      for (const k of PATH_KINDS) n[k] = `${k}${i}`;
      b = await buildInMemory(spec(n), 'spec.pipe.sql', { env });
    }
    for (const [path, text] of b.files) assert.ok(!text.includes(secret), `trial ${i}: a planted secret is in ${path}`);
    const where = `trial ${i} (${JSON.stringify(n)})`;
    assert.deepEqual(b.errors, [], `${where}\n${spec(n)}`);
    checkRuntime(b, n, where);
    checkGeneratedYaml(b, n, where);
    const spark = checkSpark(b, n, where);
    const planText = b.files.get('plan.txt')!;
    assert.equal(planText.replace(/\n/g, "").match(UNSAFE_CHARS), null, `${where}: raw unsafe character in plan.txt`);
    assert.equal(countLines(planText), baseLines, `${where}: plan.txt\n${planText}`);
    for (const [path, text] of b.files) if (path.endsWith('.json')) JSON.parse(text);
    const ch = b.files.get('clickhouse.sql')!;
    // (Inside a quoted ClickHouse identifier any character is the name's own: chdb parses them below.)
    const chStmts = clickhouseStatements(ch);
    assert.deepEqual(chStmts.map(statementHead), baseHeads, `${where}: ClickHouse statements differ from the plain-name build:\n${ch}`);
    // chdb reads the file as written: UTF-8, where a lone surrogate is already U+FFFD.
    const asWritten = (t: string): string => Buffer.from(t, 'utf8').toString('utf8');
    sqlScripts[`ch${i}`] = { sql: asWritten(ch), clickhouse: true, statements: chStmts.map(asWritten) };
    sqlScripts[`spark${i}`] = { sql: asWritten(spark), clickhouse: false };
    // `pipec fmt --to yaml`: the output parses, and compiles to a plan with the same names.
    const yamlText = checkYaml(b, where);
    const y = await buildInMemory(yamlText, 'spec.pipe.yaml', { targets: false });
    if (y.plan && y.errors.length === 0) {
      yamlRoundTrips++;
      assert.equal(y.plan.pipeline.name, b.plan!.pipeline.name, where);
      assert.deepEqual(y.plan.sinks.map((s) => s.name), b.plan!.sinks.map((s) => s.name), where);
      assert.deepEqual(y.plan.sources.map((s) => s.columns.map((c) => c.name)), b.plan!.sources.map((s) => s.columns.map((c) => c.name)), where);
    } else {
      for (const e of y.errors) assert.ok(!e.startsWith('internal-error'), `${where}: ${e}\n${yamlText}`);
    }
  }

  // One Python call for every script: chdb parses each ClickHouse statement, sqlparse splits the Spark SQL.
  const res = (await runPythonHelper('sql-statements.py', [], JSON.stringify({ scripts: sqlScripts }))) as {
    ok: boolean;
    scripts: Record<string, { statements: { head: string; ast: string | null }[] }>;
  };
  assert.ok(res.ok);
  for (let i = 0; i < trials; i++) {
    const st = res.scripts[`ch${i}`]!.statements;
    for (const s of st) assert.equal(s.ast, 'ok', `trial ${i}: chdb cannot parse ${s.head}: ${s.ast}`);
    const sp = res.scripts[`spark${i}`]!.statements;
    assert.equal(sp.length, 3, `trial ${i}: sqlparse splits the Spark SQL into ${sp.length} statements:\n${sqlScripts[`spark${i}`]!.sql}`);
    for (const s of sp) assert.match(s.head, /^CALL /, `trial ${i}`);
  }
  process.stdout.write(`# hostile names: ${trials} trials, ${refused} with path-segment names refused, ${yamlRoundTrips} fmt --to yaml round trips compiled\n`);
});
