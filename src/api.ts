// pipec's library API (`import { check, build, format, explain } from 'pipec'`): the one public
// surface for editors, CI bots and scripts. Specs come from disk (`files`) or from memory
// (`sources`: path → text); nothing here writes a file, prints, or exits — results are plain
// data (diagnostics as `pipec check --format json` describes them, plans as `pipec plan
// --format json`). The CLI is a client of these functions. Documented in docs/api.md.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { discoverSpecs } from './build/discover.ts';
import { compileFile, parseSpecText } from './build/compile.ts';
import { DiagnosticBag } from './diagnostics/bag.ts';
import { syntheticSpan } from './diagnostics/span.ts';
import { CODES, lookupCode } from './diagnostics/registry.ts';
import { formatSql } from './syntax/format/to-sql.ts';
import { formatYaml } from './syntax/format/to-yaml.ts';
import type { Diagnostic } from './diagnostics/diagnostic.ts';
import type { PlanDoc } from './plan/ir.ts';
import type { TargetName } from './plan/physical/target-api.ts';
import type { EnvResolver } from './syntax/front-end.ts';

export type { Diagnostic, Label, Severity } from './diagnostics/diagnostic.ts';
export type { Span } from './diagnostics/span.ts';
export type { PlanDoc } from './plan/ir.ts';
export type { TargetName } from './plan/physical/target-api.ts';

export interface SpecInput {
  /** In-memory specs: path (ending .pipe.sql / .pipe.yaml; it names the spec in diagnostics) → text. */
  sources?: Record<string, string>;
  /** Spec files or folders on disk, relative to `cwd` (folders are searched for specs). */
  files?: string[];
  /** What relative paths resolve against (`files`, a spec's `file:` schemas). Default: process.cwd(). */
  cwd?: string;
  /** Values of `${VAR}` references. Default: none (a referenced variable is then a diagnostic). */
  env?: Record<string, string | undefined>;
  /** Variable lookup with more logic than a record (the CLI's pipec.yaml profiles); wins over `env`. */
  envResolver?: EnvResolver;
}

export interface CheckResult {
  /** Every diagnostic of every spec, in file and position order. */
  diagnostics: Diagnostic[];
  /** No errors (warnings allowed). */
  ok: boolean;
  /** The spec paths that were compiled. */
  specs: string[];
}

export interface BuildInput extends SpecInput {
  /** Which targets to run; default all. */
  targets?: TargetName[] | 'all';
  /**
   * Files generated earlier, relative to the output folder (`<pipeline>/iceberg/...`), which
   * some targets read back (Iceberg field-id locks keep ids stable). Default: none.
   */
  previous?: Record<string, string>;
}

export interface BuildResult extends CheckResult {
  /** The optimized plan of each pipeline built, by pipeline name. */
  plans: Record<string, PlanDoc>;
  /** What `pipec build` writes to generated/: path relative to it (`<pipeline>/plan.txt`) → contents. */
  outputs: Record<string, string | Uint8Array>;
  /** Runtime bundles: `<pipeline>/pipeline.mjs` → contents (what `pipec build` writes to dist/bundles/). */
  bundles: Record<string, string | Uint8Array>;
}

interface Resolved {
  cwd: string;
  env: EnvResolver;
  files: string[];
  readText?: (path: string) => string | null;
  missing: Diagnostic[];
}

function resolveInput(input: SpecInput): Resolved {
  const cwd = input.cwd ?? process.cwd();
  const vars = input.env ?? {};
  const env: EnvResolver = input.envResolver ?? { get: (name) => (Object.hasOwn(vars, name) ? vars[name] : undefined) };
  const bag = new DiagnosticBag();
  const files: string[] = [];
  if (input.files) {
    const found = discoverSpecs(input.files, cwd);
    files.push(...found.files);
    for (const path of found.missing) bag.report('file-not-found', syntheticSpan(path), { path });
  }
  const sources = input.sources;
  if (!sources) return { cwd, env, files, missing: bag.items };
  files.push(...Object.keys(sources).sort());
  const readText = (path: string): string | null => (Object.hasOwn(sources, path) ? sources[path]! : null);
  // Paths given in `files` are still read from disk.
  const onDisk = new Set(files.filter((f) => !Object.hasOwn(sources, f)));
  return {
    cwd,
    env,
    files,
    missing: bag.items,
    readText: (path) => (onDisk.has(path) ? readDisk(cwd, path) : readText(path)),
  };
}

function readDisk(cwd: string, path: string): string | null {
  try {
    return readFileSync(join(cwd, path), 'utf8');
  } catch {
    return null;
  }
}

/** Parses, resolves schemas, type-checks and lints: `pipec check`. */
export async function check(input: SpecInput): Promise<CheckResult> {
  const r = resolveInput(input);
  const diagnostics = [...r.missing];
  for (const file of r.files) {
    const c = await compileFile(file, { cwd: r.cwd, env: r.env, ...(r.readText ? { readText: r.readText } : {}) });
    diagnostics.push(...c.diagnostics.sorted());
  }
  return { diagnostics, ok: !diagnostics.some((d) => d.severity === 'error'), specs: r.files };
}

/** Everything check does, then each target's files — in memory, written nowhere: `pipec build`. */
export async function build(input: BuildInput): Promise<BuildResult> {
  // Loaded here, not at the top: check() (and so `pipec check`'s cold start) never pays for the targets.
  const [{ buildSpecs }, { resolveTargets }] = await Promise.all([import('./build/build.ts'), import('./build/targets.ts')]);
  const r = resolveInput(input);
  const targets = resolveTargets(input.targets === undefined || input.targets === 'all' ? 'all' : input.targets.join(','));
  // A wrong target name is a programming error of the caller, not a spec mistake.
  if (typeof targets === 'string') throw new TypeError(`pipec build: ${targets}`);
  const previous = input.previous ?? {};
  const result = await buildSpecs({
    cwd: r.cwd,
    env: r.env,
    files: r.files,
    targets,
    outDir: 'generated',
    ...(r.readText ? { readText: r.readText } : {}),
    readPrevious: (pipeline, path) => previous[`${pipeline}/${path}`] ?? null,
  });
  const diagnostics = [...r.missing, ...result.results.flatMap((c) => c.diagnostics.sorted())];
  const plans: Record<string, PlanDoc> = {};
  for (const c of result.results) if (c.plan && !c.diagnostics.hasErrors && result.pipelines.includes(c.plan.pipeline.name)) plans[c.plan.pipeline.name] ??= c.plan;
  return {
    diagnostics,
    ok: !diagnostics.some((d) => d.severity === 'error'),
    specs: r.files,
    plans,
    outputs: Object.fromEntries([...result.outputs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    bundles: Object.fromEntries(result.bundles),
  };
}

export interface FormatInput {
  /** Names the spec's form (.pipe.sql or .pipe.yaml) and appears in diagnostics. */
  path: string;
  text: string;
  /** Convert to the other form; default: the form of `path`. */
  to?: 'sql' | 'yaml';
}

export interface FormatResult {
  /** The canonical text; null when the spec does not parse (see diagnostics). */
  text: string | null;
  diagnostics: Diagnostic[];
}

/** Canonical formatting, or conversion between the SQL and YAML forms: `pipec fmt`. `${VAR}` text is kept as written. */
export function format(input: FormatInput): FormatResult {
  const diagnostics = new DiagnosticBag();
  const ast = parseSpecText(input.path, input.text, { get: (name) => `\${${name}}` }, diagnostics);
  if (diagnostics.hasErrors) return { text: null, diagnostics: diagnostics.sorted() };
  const to = input.to ?? (input.path.endsWith('.pipe.sql') ? 'sql' : 'yaml');
  return { text: to === 'sql' ? formatSql(ast) : formatYaml(ast), diagnostics: diagnostics.sorted() };
}

export interface Explanation {
  code: string;
  severity: Diagnostic['severity'];
  title: string;
  /** The long text `pipec explain CODE` prints: why it matters, an example, the fix. */
  explain: string;
}

/** The registry entry of a diagnostic code, or null for an unknown code: `pipec explain CODE`. */
export function explain(code: string): Explanation | null {
  const d = lookupCode(code);
  return d ? { code, severity: d.severity, title: d.title, explain: d.explain } : null;
}

/** Every diagnostic code, in registry order: `pipec explain` without a code. */
export function codes(): Explanation[] {
  return Object.keys(CODES)
    .filter((c) => !c.endsWith('-placeholder-unused'))
    .map((c) => explain(c)!);
}
