// Runs the differential cases through both engines: pipec in-process (what `pipec run` does:
// compile the spec, run the runtime, file source → file sink) and Flink, all cases in ONE job.
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { compileFile } from '../../../src/build/compile.ts';
import { runPipeline } from '../../../targets/runtime/index.ts';
import { readNdjson } from '../../fixtures/runtime/run-helpers.ts';
import { flinkFileSource, flinkSink, runFlink, type FlinkRow } from '../../support/flink.ts';
import type { Case } from './cases.ts';

export interface PipecOut {
  rows: Record<string, unknown>[];
  diagnostics: string[];
}

/** The pipec spec of a case: its sources, the query as a view with the case's EMIT clause, a file sink. */
export function pipecSpec(c: Case): string {
  const sources = Object.entries(c.pipecSources).map(
    ([name, cols]) => `CREATE SOURCE ${name} (${cols}) WITH (connector = 'file', path = '${name}.ndjson', format = 'ndjson');`,
  );
  return [...sources, `CREATE VIEW v AS ${c.pipecQuery ?? c.query}\n${c.emitClause};`, `CREATE SINK out FROM v WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');`, ''].join('\n');
}

export async function runPipec(c: Case, dir: string): Promise<PipecOut> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'case.pipe.sql'), pipecSpec(c));
  for (const [name, text] of Object.entries(c.inputs)) writeFileSync(path.join(dir, `${name}.ndjson`), text);
  const r = await compileFile('case.pipe.sql', { cwd: dir, env: { get: () => undefined } });
  const diagnostics = r.diagnostics.items.filter((d) => d.severity === 'error').map((d) => `${d.code}: ${d.message}`);
  if (!r.plan || diagnostics.length > 0) return { rows: [], diagnostics };
  let stderr = '';
  const x = await runPipeline(r.plan, { baseDir: dir, env: {}, handleSignals: false, stdout: () => {}, stderr: (t) => (stderr += t) });
  if (x.exitCode !== 0) return { rows: [], diagnostics: [`exit ${x.exitCode}: ${stderr.slice(-2000)}`] };
  return { rows: readNdjson(path.join(dir, 'out.ndjson')), diagnostics: [] };
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
    let query = c.query;
    for (const [name, cols] of Object.entries(c.flinkSources)) {
      const file = path.join(cdir, `${name}.ndjson`);
      writeFileSync(file, c.inputs[name]!);
      const table = `${c.id}__${name}`;
      ddl.push(flinkFileSource(table, cols, file));
      // Table names are the case's own: rename the query's references (FROM/JOIN/TABLE <name>).
      query = query.replace(new RegExp(`\\bTABLE ${name}\\b`, 'g'), `TABLE ${table}`).replace(new RegExp(`\\b(FROM|JOIN) ${name}\\b`, 'g'), `$1 ${table} AS ${name}`);
    }
    const sink = `${c.id}__out`;
    const out = path.join(cdir, 'flink-out');
    ddl.push(flinkSink(sink, c.cols.map((col) => `${col.name} ${col.flinkType}`).join(', '), out));
    inserts.push(`INSERT INTO ${sink} ${query}`);
    sinks[c.id] = out;
  }
  const r = await runFlink({ ddl, inserts, sinks }, { timeoutMs: 900_000 });
  return { rows: r.sinks, seconds: r.seconds };
}
