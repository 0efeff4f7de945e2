// Test helpers of the checker: parse a .pipe.sql text with the real grammar, check it with a
// real schema loader rooted at specs/ (or a stub where a test says so), and look diagnostics up.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parsePipeSql } from '../../../src/syntax/sql/index.ts';
import { checkPipeline } from '../../../src/check/index.ts';
import { createSchemaLoader } from '../../../src/schema/index.ts';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import type { Diagnostic } from '../../../src/diagnostics/diagnostic.ts';
import type { IrOperator, PlanDoc } from '../../../src/plan/ir.ts';
import type { LoadedSchema, SchemaLoader } from '../../../src/schema/schema-loader.ts';

export const SPECS_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../specs');

const env = { get: (name: string): string | undefined => `val_${name.toLowerCase()}` };

export interface Checked {
  plan: PlanDoc | null;
  diags: Diagnostic[];
  /** Codes of all diagnostics, in position order. */
  codes: string[];
  /** Codes of errors only. */
  errors: string[];
}

export async function check(text: string, schemas?: SchemaLoader): Promise<Checked> {
  const bag = new DiagnosticBag();
  const file = 'test.pipe.sql';
  const ast = parsePipeSql(text, { file, env, diagnostics: bag });
  const syntax = bag.items.filter((d) => d.severity === 'error');
  if (syntax.length > 0) throw new Error(`test spec does not parse: ${syntax.map((d) => `${d.span.start.line}:${d.span.start.column} ${d.message}`).join('; ')}`);
  const loader = schemas ?? createSchemaLoader({ baseDir: SPECS_DIR, env });
  const plan = await checkPipeline(ast, { diagnostics: bag, schemas: loader, baseDir: SPECS_DIR, relFile: 'specs/test.pipe.sql' });
  const diags = bag.sorted();
  return { plan, diags, codes: diags.map((d) => d.code), errors: diags.filter((d) => d.severity === 'error').map((d) => d.code) };
}

/** `line:col` of each diagnostic with `code`. */
export function at(c: Checked, code: string): string[] {
  return c.diags.filter((d) => d.code === code).map((d) => `${d.span.start.line}:${d.span.start.column}`);
}

export function diag(c: Checked, code: string): Diagnostic {
  const d = c.diags.find((x) => x.code === code);
  if (!d) throw new Error(`no ${code} among ${c.codes.join(', ') || 'no diagnostics'}`);
  return d;
}

export function op(plan: PlanDoc | null, id: string): IrOperator {
  const o = plan?.operators.find((x) => x.id === id);
  if (!o) throw new Error(`no operator ${id} among ${plan?.operators.map((x) => x.id).join(', ')}`);
  return o;
}

/** A schema loader that answers every request with fixed fields: for tests about the checker, not schemas. */
export function stubSchemas(fields: LoadedSchema['fields'], primaryKey: string[] | null = null): SchemaLoader {
  const loaded: LoadedSchema = { fields, primaryKey, canonicalText: '{}', description: 'stub schema' };
  return {
    load: async () => loaded,
    loadPostgresTable: async () => loaded,
  };
}

/** A kafka source with the given column list and a 5 s watermark on `ts`. */
export function kafkaSource(name: string, columns: string, extra = ''): string {
  return `CREATE SOURCE ${name} (
  ${columns},
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (connector = 'kafka', topic = '${name}'${extra});
`;
}
