// Reports of `pipec test`: readable text (a table diff per failing output), JUnit XML and JSON for CI.
import type { CaseResult, FileResult } from './run-tests.ts';

export interface Totals {
  passed: number;
  failed: number;
  /** Cases a target could not play (say why by code). */
  skipped: number;
  /** Test files that could not run (their diagnostics are printed on stderr). */
  broken: number;
  ms: number;
}

export function totals(files: FileResult[]): Totals {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let ms = 0;
  for (const f of files)
    for (const c of f.cases) {
      if (c.skipped) skipped++;
      else if (c.ok) passed++;
      else failed++;
      ms += c.ms;
    }
  return { passed, failed, skipped, broken: files.filter((f) => f.diagnostics.some((d) => d.severity === 'error')).length, ms };
}

/** `[clickhouse] ` before a case played on another target than the runtime. */
const targetTag = (c: CaseResult): string => (c.target === 'runtime' ? '' : `[${c.target}] `);

const msText = (ms: number): string => `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;

function caseDetail(c: CaseResult): string {
  const out: string[] = [];
  if (c.error) out.push(`  the pipeline failed: ${c.error.split('\n').join('\n  ')}`);
  for (const f of c.failures) {
    out.push(`  ${f.title}: ${f.summary}`);
    out.push(...f.table.split('\n').map((l) => `    ${l}`));
  }
  return out.join('\n');
}

export function textReport(files: FileResult[]): string {
  const out: string[] = [];
  for (const f of files)
    for (const c of f.cases) {
      const restarts = c.restarts ? `, ${c.restarts} restart${c.restarts > 1 ? 's' : ''}` : '';
      if (c.skipped) {
        out.push(`SKIP ${targetTag(c)}${f.file} › ${c.name} (${c.skipped})`);
        continue;
      }
      out.push(`${c.ok ? 'PASS' : 'FAIL'} ${targetTag(c)}${f.file} › ${c.name} (${msText(c.ms)}${restarts})`);
      if (!c.ok) out.push(caseDetail(c));
    }
  const t = totals(files);
  const all = files.flatMap((f) => f.cases).filter((c) => c.target === 'runtime');
  // After the first test (which pays for loading the runtime), the per-test time that matters.
  const rest = all.slice(1);
  const mean = rest.length ? ` (first ${msText(all[0]!.ms)}, then ${msText(rest.reduce((a, c) => a + c.ms, 0) / rest.length)} each)` : '';
  const broken = t.broken ? `, ${t.broken} test file(s) with errors` : '';
  const skipped = t.skipped ? `, ${t.skipped} skipped` : '';
  out.push('', `${t.passed} passed, ${t.failed} failed${skipped}${broken} in ${msText(t.ms)}${mean}`);
  return out.join('\n') + '\n';
}

const xml = (s: string): string => s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

export function junitReport(files: FileResult[]): string {
  const t = totals(files);
  const out = [`<?xml version="1.0" encoding="UTF-8"?>`, `<testsuites name="pipec test" tests="${t.passed + t.failed + t.skipped + t.broken}" failures="${t.failed}" errors="${t.broken}" skipped="${t.skipped}" time="${(t.ms / 1000).toFixed(3)}">`];
  for (const f of files) {
    const failures = f.cases.filter((c) => !c.ok).length;
    const errs = f.diagnostics.filter((d) => d.severity === 'error');
    const time = f.cases.reduce((a, c) => a + c.ms, 0) / 1000;
    out.push(`  <testsuite name="${xml(f.file)}" tests="${f.cases.length || (errs.length ? 1 : 0)}" failures="${failures}" errors="${errs.length ? 1 : 0}" time="${time.toFixed(3)}">`);
    if (errs.length) {
      const text = errs.map((d) => `${d.span.file}:${d.span.start.line}: error[${d.code}]: ${d.message}`).join('\n');
      out.push(`    <testcase classname="${xml(f.file)}" name="(test file)">`, `      <error message="${xml(errs[0]!.message)}">${xml(text)}</error>`, `    </testcase>`);
    }
    for (const c of f.cases) {
      out.push(`    <testcase classname="${xml(f.file)}" name="${xml(targetTag(c) + c.name)}" time="${(c.ms / 1000).toFixed(3)}">`);
      if (c.skipped) out.push(`      <skipped message="${xml(c.skipped)}"/>`);
      else if (!c.ok) {
        const first = c.error ? 'the pipeline failed' : `${c.failures[0]!.title}: ${c.failures[0]!.summary}`;
        out.push(`      <failure message="${xml(first)}">${xml(caseDetail(c))}</failure>`);
      }
      out.push(`    </testcase>`);
    }
    out.push(`  </testsuite>`);
  }
  out.push(`</testsuites>`);
  return out.join('\n') + '\n';
}

export function jsonReport(files: FileResult[]): string {
  const t = totals(files);
  const doc = {
    passed: t.passed,
    failed: t.failed,
    skipped: t.skipped,
    files: files.map((f) => ({
      file: f.file,
      diagnostics: f.diagnostics.map((d) => ({ code: d.code, severity: d.severity, message: d.message, file: d.span.file, line: d.span.start.line, column: d.span.start.column })),
      tests: f.cases.map((c) => ({
        name: c.name,
        target: c.target,
        ok: c.ok,
        skipped: c.skipped,
        ms: Math.round(c.ms * 10) / 10,
        restarts: c.restarts,
        error: c.error,
        failures: c.failures.map((x) => ({ output: x.output, title: x.title, summary: x.summary, diff: x.table })),
      })),
    })),
  };
  return JSON.stringify(doc, null, 2) + '\n';
}
