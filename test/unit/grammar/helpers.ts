// Shared helpers for the .pipe.sql front-end tests: a context with a fixed environment, fixture
// loading, and a span-free view of AST nodes for structural comparisons.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import type { FrontEndContext } from '../../../src/syntax/front-end.ts';
import type { Span } from '../../../src/diagnostics/span.ts';

export const FIXTURES = join(import.meta.dirname, 'fixtures');

export function fixture(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
}

export const FIXTURE_NAMES = ['statements-source.pipe.sql', 'view-window.pipe.sql', 'sinks-compaction.pipe.sql', 'queries.pipe.sql'];

export function makeCtx(env: Record<string, string> = {}, file = 'test.pipe.sql'): FrontEndContext & { diagnostics: DiagnosticBag } {
  return { file, env: { get: (n) => env[n] }, diagnostics: new DiagnosticBag() };
}

/** Deep copy without spans (and without the keys named in `drop`). */
export function strip(v: unknown, drop: string[] = []): unknown {
  const skip = new Set(['span', 'keySpan', 'typeSpan', ...drop]);
  return JSON.parse(JSON.stringify(v, (k, x) => (skip.has(k) ? undefined : x)));
}

/** `line:col-line:col` of a span, to compare with positions counted by hand in the fixture. */
export function at(s: Span): string {
  return `${s.start.line}:${s.start.column}-${s.end.line}:${s.end.column}`;
}

/** Diagnostics as `line:col code`, in report order. */
export function diagLines(bag: DiagnosticBag): string[] {
  return bag.sorted().map((d) => `${d.span.start.line}:${d.span.start.column} ${d.code}`);
}
