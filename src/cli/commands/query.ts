// `pipec query <sql> [paths]`: DuckDB SQL over what local runs of the specs wrote, each file or
// Iceberg sink a table named by the sink; prints a text table, CSV or JSON lines.
import { dirname, resolve } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { compileFile } from '../../build/compile.ts';
import { discoverSpecs } from '../../build/discover.ts';
import { localRelations, type LocalRelation, type NotQueryable } from '../../build/query-relations.ts';
import { QueryError, runQuery, type QueryOutput } from '../../build/query.ts';
import { reportMissing, specPaths } from './shared.ts';
import { printDiagnostics, type CommandContext } from '../context.ts';

export type QueryFormat = 'table' | 'csv' | 'json';

export interface QueryArgs {
  sql: string | undefined;
  paths: string[];
  format: QueryFormat;
  snapshot: string | null;
}

export async function queryCommand(ctx: CommandContext, args: QueryArgs): Promise<number> {
  if (!args.sql?.trim()) {
    ctx.io.stderr(`pipec query: give the SQL to run, e.g. pipec query 'SELECT * FROM my_sink LIMIT 10'\n`);
    return 2;
  }
  const paths = specPaths(ctx, args.paths, 'query');
  if (!paths) return 2;
  const { files, missing, notSpecs } = discoverSpecs(paths, ctx.cwd);
  const problems = reportMissing(missing, notSpecs);
  const relations: LocalRelation[] = [];
  const notQueryable: NotQueryable[] = [];
  for (const file of files) {
    const r = await compileFile(file, { cwd: ctx.cwd, env: ctx.env });
    problems.push(...r.diagnostics.sorted().filter((d) => d.severity === 'error'));
    if (!r.plan || r.diagnostics.hasErrors) continue;
    const local = localRelations(r.plan, resolve(ctx.cwd, dirname(file)), { ...ctx.resolvedEnv });
    relations.push(...local.relations);
    notQueryable.push(...local.notQueryable);
  }
  if (problems.length) {
    printDiagnostics(ctx, problems, 'text');
    return 1;
  }
  let out: QueryOutput;
  try {
    out = await runQuery({ sql: args.sql, relations, notQueryable, snapshot: args.snapshot });
  } catch (e) {
    if (!(e instanceof QueryError)) throw e;
    ctx.io.stderr(`pipec query: ${e.message}\n`);
    return 1;
  }
  ctx.io.stdout(formatOutput(out, args.format));
  return 0;
}

function formatOutput(out: QueryOutput, format: QueryFormat): string {
  switch (format) {
    case 'json':
      return out.jsonRows.map((r) => JSON.stringify(r) + '\n').join('');
    case 'csv':
      return stringify([out.columns.map((c) => c.name), ...out.rows.map((r) => r.map((v) => v ?? ''))]);
    case 'table':
      return textTable(out);
  }
}

const NUMERIC = /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|DECIMAL)/;

/** Columns padded to their widest cell, numbers right-aligned, NULL spelled out, a row count last. */
function textTable(out: QueryOutput): string {
  const cells = out.rows.map((r) => r.map((v) => v ?? 'NULL'));
  const width = out.columns.map((c, i) => Math.max([...c.name].length, ...cells.map((r) => [...r[i]!].length)));
  const right = out.columns.map((c) => NUMERIC.test(c.type));
  const pad = (s: string, i: number) => (right[i] ? s.padStart(width[i]! + s.length - [...s].length) : s.padEnd(width[i]! + s.length - [...s].length));
  const line = (r: string[]) => r.map(pad).join(' | ').trimEnd() + '\n';
  const rule = width.map((w) => '-'.repeat(w)).join('-+-') + '\n';
  const n = cells.length;
  return line(out.columns.map((c) => c.name)) + rule + cells.map(line).join('') + `(${n} row${n === 1 ? '' : 's'})\n`;
}
