// Helpers of the compiler-limit tests: compile a spec text (either form) from a scratch folder
// with the real driver, and generate the oversized inputs of docs/security.md "Compiler limits".
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { compileFile, type CompileResult } from '../../../src/build/compile.ts';
import type { EnvResolver } from '../../../src/syntax/front-end.ts';

export const ENV: EnvResolver = { get: (name) => (name === 'A' ? undefined : `val_${name}`) };

export async function compileText(text: string, ext: '.pipe.sql' | '.pipe.yaml' = '.pipe.sql', env: EnvResolver = ENV): Promise<CompileResult> {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-limits-'));
  try {
    writeFileSync(join(dir, `t${ext}`), text);
    return await compileFile(`t${ext}`, { cwd: dir, env });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const codes = (r: CompileResult): string[] => r.diagnostics.items.map((d) => d.code);

export const HEAD = "PIPELINE p;\nCREATE SOURCE s (a INT, b STRING, t TIMESTAMP(3), WATERMARK FOR t AS t - INTERVAL '1' SECOND) WITH (connector = 'datagen');\n";

/** A view selecting `expr`, and a sink of it. */
export function withExpr(expr: string): string {
  return `${HEAD}CREATE VIEW v AS SELECT ${expr} AS x FROM s;\nCREATE SINK k FROM v WITH (connector = 'stdout');\n`;
}

/** Milliseconds one call of `f` takes (after one warm-up call). */
export async function timeIt(f: () => unknown): Promise<number> {
  await f();
  const t = performance.now();
  await f();
  return performance.now() - t;
}
