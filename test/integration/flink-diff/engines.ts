// Runs the differential cases through both engines: pipec in-process (what `pipec run` does:
// compile the spec, run the runtime, file source → file sink) and Flink through the script
// `pipec build --target flink` generates from the same spec, all cases in ONE job.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { compileFile } from '../../../src/build/compile.ts';
import { runPipeline } from '../../../targets/runtime/index.ts';
import { readNdjson } from '../../fixtures/runtime/run-helpers.ts';
import assert from 'node:assert/strict';
import { build } from '../../../src/api.ts';
import { runFlink, type FlinkRow } from '../../support/flink.ts';
import { splitScript } from '../flink-target/script.ts';
import type { Case } from './cases.ts';

export interface PipecOut {
  rows: Record<string, unknown>[];
  /** The `late_rows` sink's rows (cases with `expectedLate`), and the run's late-event total. */
  late: Record<string, unknown>[];
  lateTotal: number | null;
  diagnostics: string[];
}

/** The pipec spec of a case: its sources and views, the query as a view with the case's EMIT clause, a file sink (+ a late sink). */
export function pipecSpec(c: Case): string {
  const sources = Object.entries(c.sources).map(
    ([name, cols]) => `CREATE SOURCE ${name} (${cols}) WITH (connector = 'file', path = '${name}.ndjson', format = 'ndjson');`,
  );
  const views = Object.entries(c.views ?? {}).map(([name, select]) => `CREATE VIEW ${name} AS ${select};`);
  const late = c.expectedLate !== undefined ? [`CREATE SINK late_rows WITH (connector = 'file', path = 'late.ndjson', format = 'ndjson');`] : [];
  return [...sources, ...views, ...late, `CREATE VIEW v AS ${c.query}\n${c.emitClause};`, `CREATE SINK out FROM v WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');`, ''].join('\n');
}

export async function runPipec(c: Case, dir: string): Promise<PipecOut> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'case.pipe.sql'), pipecSpec(c));
  for (const [name, text] of Object.entries(c.inputs)) writeFileSync(path.join(dir, `${name}.ndjson`), text);
  const r = await compileFile('case.pipe.sql', { cwd: dir, env: { get: () => undefined } });
  const diagnostics = r.diagnostics.items.filter((d) => d.severity === 'error').map((d) => `${d.code}: ${d.message}`);
  if (!r.plan || diagnostics.length > 0) return { rows: [], late: [], lateTotal: null, diagnostics };
  let stderr = '';
  // status 'tty': the run ends with its totals line (what `pipec run` shows on a terminal).
  const x = await runPipeline(r.plan, { baseDir: dir, env: {}, handleSignals: false, status: 'tty', stdout: () => {}, stderr: (t) => (stderr += t) });
  if (x.exitCode !== 0) return { rows: [], late: [], lateTotal: null, diagnostics: [`exit ${x.exitCode}: ${stderr.slice(-2000)}`] };
  const lateFile = path.join(dir, 'late.ndjson');
  // The end-of-run totals line: `finished after 1.2 s: in N records  out M rows  late L  dead D`.
  const total = /finished after [^\n]*\blate (\d+)\b/.exec(stderr);
  return { rows: readNdjson(path.join(dir, 'out.ndjson')), late: existsSync(lateFile) ? readNdjson(lateFile) : [], lateTotal: total ? Number(total[1]) : null, diagnostics: [] };
}

/** A case's Flink script as `pipec build --target flink` writes it, and the build's warning codes. */
export interface FlinkBuild {
  sql: string;
  /** `code: message` of every diagnostic of the build (only warnings: an error fails the test). */
  diagnostics: { code: string; severity: string; message: string }[];
}

/** Builds a case's pipec spec with the Flink target (the API `pipec build` uses), in memory. */
export async function buildFlink(c: Case, dir: string): Promise<FlinkBuild> {
  const r = await build({ sources: { 'case.pipe.sql': pipecSpec(c) }, cwd: dir, targets: ['flink'] });
  const diagnostics = r.diagnostics.map((d) => ({ code: d.code, severity: d.severity, message: d.message }));
  const sql = r.outputs['case/flink/pipeline.sql'];
  if (!r.ok || typeof sql !== 'string') throw new Error(`pipec build --target flink of ${c.id} failed:\n${diagnostics.map((d) => `${d.code}: ${d.message}`).join('\n')}`);
  return { sql, diagnostics };
}

/**
 * One generated script's statements with every table and view it declares renamed `<case>__<name>`,
 * so many scripts share one Flink session. A name is a quoted identifier after the keywords that
 * name a relation (TABLE, VIEW, FROM, JOIN, INTO); column names never follow those.
 */
export function renameRelations(caseId: string, script: { ddl: string[]; inserts: string[] }): string[][] {
  const declared = new Set<string>();
  for (const s of script.ddl) {
    const m = /^CREATE TEMPORARY (?:TABLE|VIEW) `((?:[^`]|``)+)`/.exec(s);
    if (m) declared.add(m[1]!);
  }
  const rename = (s: string): string => s.replace(/\b(TABLE|VIEW|FROM|JOIN|INTO) `((?:[^`]|``)+)`/g, (all, kw: string, name: string) => (declared.has(name) ? `${kw} \`${caseId}__${name}\`` : all));
  return [script.ddl.map(rename), script.inserts.map(rename)];
}

/**
 * Every case through its GENERATED Flink script, all in ONE job: each case's spec is built with
 * the Flink target, its ${PIPEC_SPEC_DIR} set to the case's folder (as docs/flink.md says), its
 * relations renamed per case, and the scripts' statements run together. A case whose script has
 * no INSERT (EMIT CHANGES: the target leaves the view out, with its warning) adds nothing.
 * Returns rows by case id and each case's build.
 */
export async function runFlinkCases(cases: Case[], dir: string): Promise<{ rows: Record<string, FlinkRow[]>; builds: Record<string, FlinkBuild>; seconds: number }> {
  const ddl: string[] = [];
  const inserts: string[] = [];
  const sinks: Record<string, string> = {};
  const builds: Record<string, FlinkBuild> = {};
  let config: Record<string, string> | null = null;
  for (const c of cases) {
    const cdir = path.join(dir, c.id);
    mkdirSync(cdir, { recursive: true });
    const b = await buildFlink(c, cdir);
    builds[c.id] = b;
    for (const [name, text] of Object.entries(c.inputs)) writeFileSync(path.join(cdir, `${name}.ndjson`), text);
    const script = splitScript(b.sql.replaceAll('${PIPEC_SPEC_DIR}', cdir));
    if (script.inserts.length === 0) continue;
    // One job has one configuration: every script must ask for the same one (its name aside).
    const { ['pipeline.name']: _name, ...rest } = script.config;
    if (config === null) config = rest;
    else assert.deepEqual(rest, config, `${c.id}: the generated SET statements differ from the other cases'`);
    const [caseDdl, caseInserts] = renameRelations(c.id, script);
    ddl.push(...caseDdl!);
    inserts.push(...caseInserts!);
    // The spec's file sink `out.ndjson`: on Flink a folder of part files.
    sinks[c.id] = path.join(cdir, 'out.ndjson');
  }
  // Flink's own watermark interval (200 ms) under the scripts' SETs, not the runner's default of 0:
  // the generated script must ask for per-record watermarks itself, or lateness would differ.
  const r = await runFlink({ ddl, inserts, sinks, config: { 'pipeline.auto-watermark-interval': '200 ms', ...config } }, { timeoutMs: 900_000 });
  return { rows: r.sinks, builds, seconds: r.seconds };
}
