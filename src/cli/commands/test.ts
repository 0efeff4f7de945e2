// `pipec test [paths]`: runs `<name>.pipe.test.yaml` files on the runtime (src/test-runner/), and on
// the ClickHouse and Flink targets with --target, and
// reports as text, JUnit XML or JSON. Exit 0 when every test passes, 1 when one fails or a test
// file has errors (coded diagnostics on stderr), 2 for a usage error.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { discoverTests, runFlinkBatch, runTestFile, TEST_TARGETS, type FileResult, type FlinkBatch, type TestTarget } from '../../test-runner/run-tests.ts';
import { chdbPython } from '../../test-runner/chdb-engine.ts';
import { flinkPython } from '../../test-runner/flink-engine.ts';
import { jsonReport, junitReport, textReport, totals } from '../../test-runner/reporters.ts';
import { updatedText } from '../../test-runner/update.ts';
import { printDiagnostics, type CommandContext } from '../context.ts';
import { reportMissing, specPaths } from './shared.ts';

export interface TestArgs {
  paths: string[];
  update: boolean;
  reporter: 'text' | 'junit' | 'json';
  /** Comma-separated test targets (runtime, clickhouse, flink). */
  target: string;
  chdbPython: string | undefined;
  flinkPython: string | undefined;
}

export async function testCommand(ctx: CommandContext, args: TestArgs): Promise<number> {
  const targets = args.target.split(',').map((t) => t.trim());
  const unknown = targets.filter((t) => !(TEST_TARGETS as readonly string[]).includes(t));
  if (unknown.length || targets.length === 0) {
    ctx.io.stderr(`pipec test: unknown --target '${unknown.join(',') || args.target}' (runtime, clickhouse, flink, or a list: runtime,clickhouse,flink)\n`);
    return 2;
  }
  // Flink starts once per invocation: every file's Flink cases are gathered, then run in one job.
  const flink: FlinkBatch | undefined = targets.includes('flink') ? { python: flinkPython(args.flinkPython, ctx.env), dir: '', pending: [] } : undefined;
  const opts = { targets: targets as TestTarget[], chdbPython: chdbPython(args.chdbPython, ctx.env), flink };
  const paths = specPaths(ctx, args.paths, 'test');
  if (!paths) return 2;
  const { files, missing } = discoverTests(paths, ctx.cwd);
  if (missing.length) {
    printDiagnostics(ctx, reportMissing(missing), 'text');
    return 1;
  }
  if (files.length === 0) {
    ctx.io.stderr(`pipec test: no test files (*.pipe.test.yaml) under ${paths.join(', ')}\n`);
    return 1;
  }
  if (flink) flink.dir = mkdtempSync(join(tmpdir(), 'pipec-test-flink-'));
  const results: FileResult[] = [];
  for (const f of files) results.push(await runTestFile(f, ctx.cwd, ctx.env, opts));
  if (flink) await runFlinkBatch(flink);
  for (let i = 0; i < files.length; i++) {
    const f = files[i]!;
    const r = results[i]!;
    if (r.diagnostics.length) printDiagnostics(ctx, r.diagnostics, 'text');
    if (args.update && r.cases.length) {
      const full = resolve(ctx.cwd, f);
      const before = readFileSync(full, 'utf8');
      // Only the runtime's observed rows become expectations: other targets are checked against them.
      const after = updatedText(before, { ...r, cases: r.cases.filter((c) => c.target === 'runtime') });
      if (after !== before) {
        writeFileSync(full, after);
        ctx.io.stderr(`pipec test: updated the expected rows of ${f} (review the change before committing it)\n`);
      }
    }
  }
  ctx.io.stdout(args.reporter === 'junit' ? junitReport(results) : args.reporter === 'json' ? jsonReport(results) : textReport(results));
  const t = totals(results);
  // With --update the observed rows are now the expected ones: the run passes unless a file was
  // broken or a pipeline failed (there is nothing to write for those).
  const errored = results.some((r) => r.cases.some((c) => c.error !== null));
  return t.broken > 0 || errored || (t.failed > 0 && !args.update) ? 1 : 0;
}
