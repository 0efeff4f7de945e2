// Runs a SQL script in one chdb (in-process ClickHouse) session for tests; see test/support/CONTEXT.md.
// The splitting and execution happen in test/support/python/chdb-run.py (sqlparse + chdb) in the project venv.
import { runPythonHelper } from './venv.ts';

export interface ChdbStatementResult {
  statement: string;
  rows: Record<string, unknown>[];
}

type HelperOutput =
  | { ok: true; results: ChdbStatementResult[] }
  | { ok: false; index: number; statement: string; message: string };

/**
 * Splits `sqlScript` into statements (string literals, quoted identifiers and comments are respected), runs them
 * in order in ONE chdb session and returns each statement's rows (empty for DDL/INSERT). Integers beyond
 * Number.MAX_SAFE_INTEGER come back as decimal strings. Rejects with an Error naming the failing statement.
 */
export async function runChdb(sqlScript: string): Promise<ChdbStatementResult[]> {
  const out = (await runPythonHelper('chdb-run.py', [], sqlScript)) as HelperOutput;
  if (!out.ok) {
    throw new Error(`chdb: statement #${out.index + 1} failed: ${out.statement}\n${out.message}`);
  }
  return out.results;
}
