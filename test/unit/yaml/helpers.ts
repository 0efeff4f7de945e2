// Shared by the YAML front-end tests: parse with a fresh bag and render diagnostics compactly.
import { readFileSync } from 'node:fs';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import type { PipeFile } from '../../../src/syntax/ast.ts';
import type { FrontEndContext } from '../../../src/syntax/front-end.ts';
import { parsePipeYaml } from '../../../src/syntax/yaml/index.ts';
import { parsePipeSql } from '../../../src/syntax/sql/index.ts';

export const FIXTURES = new URL('../../fixtures/yaml/', import.meta.url);

export function fixture(name: string): string {
  return readFileSync(new URL(name, FIXTURES), 'utf8');
}

export function context(file: string, env: Record<string, string> = {}): FrontEndContext {
  return { file, env: { get: (n) => env[n] }, diagnostics: new DiagnosticBag() };
}

export interface Parsed {
  ast: PipeFile;
  ctx: FrontEndContext;
  /** "code line:col" of each diagnostic, in source order. */
  diags: string[];
}

export function parseYaml(text: string, env: Record<string, string> = {}, file = 't.pipe.yaml'): Parsed {
  const ctx = context(file, env);
  const ast = parsePipeYaml(text, ctx);
  return { ast, ctx, diags: ctx.diagnostics.sorted().map((d) => `${d.code} ${d.span.start.line}:${d.span.start.column}`) };
}

export function parseSql(text: string, env: Record<string, string> = {}, file = 't.pipe.sql'): Parsed {
  const ctx = context(file, env);
  const ast = parsePipeSql(text, ctx);
  return { ast, ctx, diags: ctx.diagnostics.sorted().map((d) => `${d.code} ${d.span.start.line}:${d.span.start.column}`) };
}

/** The AST without positions and without what differs by form (file name, source kind). */
export function withoutSpans(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v, (k, x: unknown) => (k === 'span' || k === 'keySpan' || k === 'typeSpan' || k === 'source' || k === 'file' ? undefined : x)));
}
