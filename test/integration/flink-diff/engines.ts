// Runs the differential cases through both engines: pipec in-process (what `pipec run` does:
// compile the spec, run the runtime, file source → file sink) and Flink, all cases in ONE job.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { compileFile } from '../../../src/build/compile.ts';
import { runPipeline } from '../../../targets/runtime/index.ts';
import { readNdjson } from '../../fixtures/runtime/run-helpers.ts';
import { flinkFileSource, flinkSink, runFlink, type FlinkRow } from '../../support/flink.ts';
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
  const sources = Object.entries(c.pipecSources).map(
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

/** Every case without `flinkOf` as its own sources and sink in one Flink job; rows by case id. */
export async function runFlinkCases(cases: Case[], dir: string): Promise<{ rows: Record<string, FlinkRow[]>; seconds: number }> {
  const ddl: string[] = [];
  const inserts: string[] = [];
  const sinks: Record<string, string> = {};
  for (const c of cases) {
    if (c.flinkOf !== undefined) continue;
    const cdir = path.join(dir, c.id);
    mkdirSync(cdir, { recursive: true });
    // Table and view names are the case's own: rename references (FROM/JOIN/TABLE <name>).
    const names: string[] = [];
    const rename = (text: string): string => {
      for (const name of names) {
        const table = `${c.id}__${name}`;
        text = text.replace(new RegExp(`\\bTABLE ${name}\\b`, 'g'), `TABLE ${table}`).replace(new RegExp(`\\b(FROM|JOIN) ${name}\\b`, 'g'), `$1 ${table} AS ${name}`);
      }
      return text;
    };
    for (const [name, cols] of Object.entries(c.flinkSources)) {
      const file = path.join(cdir, `${name}.ndjson`);
      writeFileSync(file, c.inputs[name]!);
      ddl.push(flinkFileSource(`${c.id}__${name}`, cols, file));
      names.push(name);
    }
    for (const [name, select] of Object.entries(c.views ?? {})) {
      ddl.push(`CREATE TEMPORARY VIEW ${c.id}__${name} AS ${rename(select)}`);
      names.push(name);
    }
    const query = rename(c.query);
    const sink = `${c.id}__out`;
    const out = path.join(cdir, 'flink-out');
    ddl.push(flinkSink(sink, c.cols.map((col) => `${col.name} ${col.flinkType}`).join(', '), out));
    inserts.push(`INSERT INTO ${sink} ${query}`);
    sinks[c.id] = out;
  }
  const r = await runFlink({ ddl, inserts, sinks }, { timeoutMs: 900_000 });
  return { rows: r.sinks, seconds: r.seconds };
}
