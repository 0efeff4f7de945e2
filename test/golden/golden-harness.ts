// Golden cases: each folder under cases/ holds one input spec (`input.pipe.sql` or
// `input.pipe.yaml`) and its named outputs under expected/: diagnostics.txt, plan.txt and one
// file per target. Outputs change only with UPDATE_GOLDEN=1 (then review the diff).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { compileFile } from '../../src/build/compile.ts';
import { renderDiagnostics } from '../../src/diagnostics/render.ts';
import { printPlanText } from '../../src/plan/print/text.ts';
import { lowerPlan } from '../../src/plan/physical/lower.ts';
import { printPhysicalText } from '../../src/plan/physical/print.ts';
import { DiagnosticBag } from '../../src/diagnostics/bag.ts';
import { TARGETS } from '../../src/build/targets.ts';
import type { EnvResolver } from '../../src/syntax/front-end.ts';

export const CASES_DIR = join(import.meta.dirname, 'cases');

/** Fixed connection values so goldens never depend on the machine's environment. */
export const GOLDEN_ENV: EnvResolver = {
  get: (name) =>
    ({
      PIPEC_KAFKA_BROKERS: '127.0.0.1:9092',
      PIPEC_SCHEMA_REGISTRY_URL: 'http://127.0.0.1:8081',
      PIPEC_CLICKHOUSE_URL: 'http://127.0.0.1:8123',
      PIPEC_CATALOG_URI: 'sqlite:///tmp/pipec-golden/catalog.db',
      PIPEC_WAREHOUSE: 'file:///tmp/pipec-golden/warehouse',
      PIPEC_SHOP_DSN: 'postgres://pipec@127.0.0.1:5432/shop',
    })[name],
};

export function listCases(): string[] {
  return readdirSync(CASES_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

export function caseInput(name: string): string {
  const dir = join(CASES_DIR, name);
  const input = readdirSync(dir).find((f) => f.startsWith('input.pipe.'));
  if (!input) throw new Error(`golden case ${name} has no input.pipe.sql / input.pipe.yaml`);
  return `test/golden/cases/${name}/${input}`;
}

/** Computes every named output of a case. Paths in outputs are relative to the repo root. */
export async function caseOutputs(name: string, repoRoot: string): Promise<Map<string, string>> {
  const input = caseInput(name);
  const r = await compileFile(input, { cwd: repoRoot, env: GOLDEN_ENV });
  const out = new Map<string, string>();
  if (r.plan && !r.diagnostics.hasErrors) {
    out.set('plan.txt', printPlanText(r.plan));
    // The physical plan every target reads (resolved connector configs, normalizes, panes...).
    const physical = lowerPlan(r.plan);
    out.set('physical.txt', printPhysicalText(physical));
    for (const target of Object.values(TARGETS)) {
      if (!target || !target.appliesTo(r.plan)) continue;
      const bag = new DiagnosticBag();
      const files = await target.emit(r.plan, { diagnostics: bag, readPrevious: () => null, physical });
      r.diagnostics.addAll(bag.items);
      for (const f of files) {
        // Runtime goldens hold the readable module, not the esbuild bundle (STYLE.md #8) nor its
        // lock (whose digests change with every runtime-library change, not with the compiler).
        if (typeof f.contents !== 'string' || f.output === 'bundle' || f.path === 'runtime/bundle.lock.json') continue;
        out.set(f.path, f.contents);
      }
    }
  }
  const text = renderDiagnostics(r.diagnostics.sorted(), {
    color: false,
    readSource: (file) => {
      try {
        return readFileSync(join(repoRoot, file), 'utf8');
      } catch {
        return null;
      }
    },
  });
  out.set('diagnostics.txt', `# input: ${input}\n${text || '(no diagnostics)\n'}`);
  return out;
}

export function expectedDir(name: string): string {
  return join(CASES_DIR, name, 'expected');
}

export function readExpected(name: string): Map<string, string> {
  const dir = expectedDir(name);
  const out = new Map<string, string>();
  const walk = (d: string, prefix: string): void => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isDirectory()) walk(join(d, e.name), `${prefix}${e.name}/`);
      else out.set(`${prefix}${e.name}`, readFileSync(join(d, e.name), 'utf8'));
    }
  };
  walk(dir, '');
  return out;
}

export function writeExpected(name: string, outputs: Map<string, string>): void {
  const dir = expectedDir(name);
  rmSync(dir, { recursive: true, force: true });
  for (const [rel, text] of outputs) {
    const full = join(dir, rel);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
  }
}
