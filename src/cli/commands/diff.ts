// `pipec diff <old> <new>` and `pipec diff --base <git-ref> [paths]`: compiles both versions of
// a spec and reports what the change does to state (whether `pipec run` resumes from the
// checkpoint: the runtime's own check over the same fingerprints), to filters and projections,
// to sink schemas and to generated files: compatible, needs backfill, or breaking.
import { compileFile } from '../../build/compile.ts';
import { discoverSpecs, specPath } from '../../build/discover.ts';
import { diffPlans, overallImpact, stateVerdict, type Finding, type Impact } from '../../build/diff.ts';
import { buildSpecs } from '../../build/build.ts';
import { resolveTargets } from '../../build/targets.ts';
import { GitBaseError, specsAtRef } from '../../build/git-base.ts';
import { refusalText } from '../../build/diff.ts';
import { printDiagnostics, type CommandContext } from '../context.ts';
import { reportMissing, specPaths } from './shared.ts';

export interface DiffArgs {
  paths: string[];
  /** `--base <ref>`: the old versions are the specs at this git revision. */
  base: string | null;
}

/** Where a spec's text comes from: the working tree (undefined) or a map of texts at a revision. */
type Texts = Map<string, string> | undefined;

interface Side {
  file: string;
  texts: Texts;
}

const RANK: Record<Impact, number> = { compatible: 0, 'needs-backfill': 1, breaking: 2 };

export async function diffCommand(ctx: CommandContext, args: DiffArgs): Promise<number> {
  const pairs: { label: string; old: Side | null; new: Side | null }[] = [];
  if (args.base === null) {
    if (args.paths.length !== 2) {
      ctx.io.stderr('pipec diff: give the old and the new spec file, or --base <git-ref> [paths]\n');
      return 2;
    }
    const [o, n] = args.paths.map((p) => specPath(p, ctx.cwd)) as [string, string];
    pairs.push({ label: `${o} → ${n}`, old: { file: o, texts: undefined }, new: { file: n, texts: undefined } });
  } else {
    const given = specPaths(ctx, args.paths, 'diff');
    if (given === null) return 2;
    const rel = given.map((p) => specPath(p, ctx.cwd));
    let before: Map<string, string>;
    try {
      before = specsAtRef(ctx.cwd, args.base, rel);
    } catch (e) {
      if (!(e instanceof GitBaseError)) throw e;
      ctx.io.stderr(`pipec diff: ${e.message}\n`);
      return 2;
    }
    const now = discoverSpecs(rel, ctx.cwd);
    // A path gone from the working tree may still have had specs at the revision.
    const missing = now.missing.filter((m) => ![...before.keys()].some((k) => k === m || k.startsWith(m.replace(/\/$/, '') + '/')));
    if (missing.length || now.notSpecs.length) {
      printDiagnostics(ctx, reportMissing(missing, now.notSpecs), 'text');
      return 1;
    }
    for (const f of [...new Set([...before.keys(), ...now.files])].sort())
      pairs.push({ label: f, old: before.has(f) ? { file: f, texts: before } : null, new: now.files.includes(f) ? { file: f, texts: undefined } : null });
    if (pairs.length === 0) ctx.io.stdout(`no spec files under ${rel.join(', ')} at ${args.base} or now\n`);
  }
  let worst: Impact = 'compatible';
  let failed = false;
  for (const p of pairs) {
    if (pairs.length > 1 || args.base !== null) ctx.io.stdout(`== ${p.label}${args.base !== null ? ` (${args.base} → working tree)` : ''}\n`);
    if (!p.old || !p.new) {
      ctx.io.stdout(p.old ? 'spec removed: its pipeline is no longer built\n\n' : `new spec: nothing at ${args.base} to compare with\n\n`);
      continue;
    }
    const r = await diffPair(ctx, p.old, p.new);
    if (r === null) failed = true;
    else if (RANK[r] > RANK[worst]) worst = r;
  }
  if (failed) return 1;
  if (pairs.length > 1) ctx.io.stdout(`impact (all specs): ${worst}\n`);
  return worst === 'breaking' ? 1 : 0;
}

const readerOf = (texts: Texts) => (texts ? { readText: (path: string) => texts.get(path) ?? null } : {});

/** Diffs one spec's two versions; prints the findings; null when either does not compile. */
async function diffPair(ctx: CommandContext, oldSide: Side, newSide: Side): Promise<Impact | null> {
  const opts = { cwd: ctx.cwd, env: ctx.env };
  const a = await compileFile(oldSide.file, { ...opts, ...readerOf(oldSide.texts) });
  const b = await compileFile(newSide.file, { ...opts, ...readerOf(newSide.texts) });
  printDiagnostics(ctx, [...a.diagnostics.sorted(), ...b.diagnostics.sorted()], 'text');
  if (!a.plan || !b.plan || a.diagnostics.hasErrors || b.diagnostics.hasErrors) return null;
  const findings: Finding[] = diffPlans(a.plan, b.plan);
  for (const f of findings) ctx.io.stdout(`${f.impact.padEnd(15)} ${f.subject}: ${f.message}\n`);
  const targets = resolveTargets('all');
  if (typeof targets !== 'string') {
    const bopts = { cwd: ctx.cwd, env: ctx.env, targets, outDir: 'generated' };
    const [ba, bb] = [await buildSpecs({ ...bopts, files: [oldSide.file], ...readerOf(oldSide.texts) }), await buildSpecs({ ...bopts, files: [newSide.file], ...readerOf(newSide.texts) })];
    const strip = (k: string): string => k.slice(k.indexOf('/') + 1);
    const fa = new Map([...ba.outputs].map(([k, v]) => [strip(k), withoutHeader(v, oldSide.file)]));
    for (const [k, v] of bb.outputs) {
      // The bundle lock pins the bundle's bytes, which carry the module's header (the spec's
      // path): it changes exactly when the module or the library does, and those are compared.
      if (strip(k) === 'runtime/bundle.lock.json') continue;
      const before = fa.get(strip(k));
      if (before === undefined) ctx.io.stdout(`generated       ${strip(k)}: new file\n`);
      else if (!before.equals(withoutHeader(v, newSide.file))) ctx.io.stdout(`generated       ${strip(k)}: changed\n`);
    }
  }
  const v = stateVerdict(a.plan, b.plan);
  ctx.io.stdout(v.resumes ? '\ncheckpoint: `pipec run` resumes from a checkpoint of the old version\n' : `\ncheckpoint: \`pipec run\` refuses a checkpoint of the old version: ${refusalText(v)}\n`);
  const impact = overallImpact(findings);
  ctx.io.stdout(`impact: ${impact}\n`);
  return impact;
}

/**
 * A generated file without its header: the leading comment lines (`//`, `--`, `#`), and the spec's
 * path wherever it is named (plan.txt's first line), differ between two copies of a spec without
 * changing anything.
 */
function withoutHeader(v: string | Uint8Array, specFile: string): Buffer {
  if (typeof v !== 'string') return Buffer.from(v);
  const lines = v.split('\n');
  let i = 0;
  while (i < lines.length && /^\s*(\/\/|--|#)/.test(lines[i]!)) i++;
  return Buffer.from(lines.slice(i).join('\n').split(specFile).join('<spec>'), 'utf8');
}
