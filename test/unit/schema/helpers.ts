// Shared helpers of the schema tests: a span for the `schema` option, and field listings in
// the language's own type syntax (so expected values read like the spec a user writes).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import type { Span } from '../../../src/diagnostics/span.ts';
import { createSchemaLoader } from '../../../src/schema/index.ts';
import type { LoadedSchema, SchemaLoader } from '../../../src/schema/schema-loader.ts';
import { formatSqlType } from '../../../src/types/sql-type.ts';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const specsDir = path.join(repoRoot, 'specs');
export const fixturesDir = path.join(repoRoot, 'test/fixtures/schemas');

/** The span of the `schema` option value in an imaginary spec (line 7, columns 18-45). */
export const optionSpan: Span = {
  file: 'specs/example.pipe.sql',
  start: { offset: 120, line: 7, column: 18 },
  end: { offset: 147, line: 7, column: 45 },
};

export function loaderFor(baseDir: string, env: Record<string, string> = {}, timeoutMs?: number): SchemaLoader {
  return createSchemaLoader({ baseDir, env: { get: (n) => env[n] }, ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
}

export async function load(
  baseDir: string,
  ref: string,
  format: string | null = null,
  env: Record<string, string> = {},
): Promise<{ schema: LoadedSchema | null; bag: DiagnosticBag }> {
  const bag = new DiagnosticBag();
  const schema = await loaderFor(baseDir, env).load({ ref, format, span: optionSpan }, bag);
  return { schema, bag };
}

/** `name TYPE` per field, as a user would declare the column. */
export const columns = (s: LoadedSchema | null): string[] => (s ? s.fields.map((f) => `${f.name} ${formatSqlType(f.type)}`) : []);

/** How diagnostics name a schema file: relative to the cwd, like spec files (never machine-specific). */
export const shown = (dir: string, file: string): string => path.relative(process.cwd(), path.join(dir, file));

export const codes = (bag: DiagnosticBag): string[] => bag.items.map((d) => d.code);
