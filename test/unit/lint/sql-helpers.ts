// Runs the real front end and checker on .pipe.sql text, then the lints (and optionally the
// optimizer), for lint/optimizer/printer tests that start from the language itself.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parsePipeSql } from '../../../src/syntax/sql/index.ts';
import { checkPipeline } from '../../../src/check/index.ts';
import { createSchemaLoader } from '../../../src/schema/index.ts';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import type { Diagnostic } from '../../../src/diagnostics/diagnostic.ts';
import { lintPipeline } from '../../../src/lint/index.ts';
import type { PlanDoc } from '../../../src/plan/ir.ts';

const SPECS_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../specs');
const env = { get: (name: string): string | undefined => `val_${name.toLowerCase()}` };

export interface Linted {
  plan: PlanDoc;
  /** Lint and plan warnings (not the checker's), in position order. */
  warnings: Diagnostic[];
  /** `code@line` of each warning. */
  where: string[];
}

export async function lintSql(text: string): Promise<Linted> {
  const bag = new DiagnosticBag();
  const ast = parsePipeSql(text, { file: 'test.pipe.sql', env, diagnostics: bag });
  const plan = await checkPipeline(ast, { diagnostics: bag, schemas: createSchemaLoader({ baseDir: SPECS_DIR, env }), baseDir: SPECS_DIR, relFile: 'specs/test.pipe.sql' });
  const errors = bag.items.filter((d) => d.severity === 'error');
  if (!plan || errors.length) throw new Error(`test spec does not check: ${errors.map((d) => `${d.span.start.line}:${d.span.start.column} ${d.code} ${d.message}`).join('; ')}`);
  const before = bag.items.length;
  lintPipeline(plan, bag);
  const warnings = [...bag.items.slice(before)].sort((a, b) => a.span.start.offset - b.span.start.offset || a.code.localeCompare(b.code));
  return { plan, warnings, where: warnings.map((d) => `${d.code}@${d.span.start.line}`) };
}
