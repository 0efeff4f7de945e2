// The ClickHouse Kafka engine starts consuming as soon as one materialized view reads its table; a view
// created after that misses the rows consumed before it. So in every generated script each Kafka table
// has exactly one reader, a view into its Null fan-out table, and those views come after every other
// statement. Checked on the shipped specs and the ClickHouse fixtures, in both source modes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileFile } from '../../../src/build/compile.ts';
import { emitClickHouse } from '../../../targets/clickhouse/index.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const env = { get: (n: string): string | undefined => `<${n}>` };
const folders = [path.join(root, 'specs'), path.join(root, 'test/fixtures/clickhouse/specs')];

interface Parsed {
  index: number;
  kind: 'table' | 'mv' | 'view' | 'database';
  name: string;
  engine: string | null;
  reads: string;
}

/** Statements of a script: what each creates, its engine, and its text after the name (what it reads). */
function parse(statements: readonly { sql: string }[]): Parsed[] {
  return statements.map((s, index) => {
    const m = /^CREATE (DATABASE|TABLE|MATERIALIZED VIEW|VIEW) IF NOT EXISTS (\S+)([\s\S]*)$/.exec(s.sql);
    assert.ok(m, `unexpected statement: ${s.sql.slice(0, 80)}`);
    const kind = ({ DATABASE: 'database', TABLE: 'table', 'MATERIALIZED VIEW': 'mv', VIEW: 'view' } as const)[m[1] as 'TABLE'];
    const engine = /\nENGINE = (\w+)/.exec(m[3]!)?.[1] ?? null;
    return { index, kind, name: m[2]!, engine, reads: m[3]! };
  });
}

/** Whether `sql` names the qualified table (backtick-quoted, so `db`.`t` never matches `db`.`t__stream`). */
const names = (sql: string, qualified: string): boolean => sql.includes(qualified);

const specs = folders.flatMap((dir) => readdirSync(dir).filter((f) => /\.pipe\.(sql|yaml)$/.test(f)).map((f) => ({ dir, file: f })));

for (const { dir, file } of specs) {
  test(`${path.relative(root, path.join(dir, file))}: every Kafka table has one reader, created after every other statement`, async () => {
    const r = await compileFile(file, { cwd: dir, env });
    assert.ok(r.plan, `${file} did not compile`);
    const kafkaOut = emitClickHouse(r.plan);
    const stmts = parse(kafkaOut.statements);
    const kafkaTables = stmts.filter((s) => s.kind === 'table' && s.engine === 'Kafka');
    if (!kafkaTables.length) return; // file/datagen sources only: no consumer to start.
    const readers = kafkaTables.map((k) => {
      const rs = stmts.filter((s) => s.index !== k.index && names(s.reads, k.name));
      assert.equal(rs.length, 1, `${k.name} is read by ${rs.map((s) => s.name).join(', ')}`);
      assert.equal(rs[0]!.kind, 'mv');
      const target = /^ TO (\S+)/.exec(rs[0]!.reads)?.[1];
      assert.equal(stmts.find((s) => s.name === target)?.engine, 'Null', `${rs[0]!.name} must fill a Null fan-out table`);
      return rs[0]!;
    });
    const first = Math.min(...readers.map((r) => r.index));
    const late = stmts.filter((s) => s.index > first && !readers.includes(s));
    assert.deepEqual(late.map((s) => s.name), [], 'statements after the first Kafka reader would miss consumed rows');
    // The insertable variant keeps the same order: only the source tables differ.
    const ins = parse(emitClickHouse(r.plan, { sourceMode: 'insertable' }).statements);
    assert.deepEqual(ins.map((s) => s.name), stmts.map((s) => s.name));
  });
}
