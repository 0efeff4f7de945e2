// The checker: resolves names, types every expression, applies the streaming rules and the
// option tables, and turns the AST of one spec into the plan IR (src/plan/ir.ts). It keeps going
// after errors so that all errors of a file are reported in one run.
import type { FromItem, Ident, PipeFile, Query, Statement } from '../syntax/ast.ts';
import { IR_VERSION, type IrCatalog, type IrCompaction, type IrOption, type IrSink, type IrView, type PlanDoc } from '../plan/ir.ts';
import type { Span } from '../diagnostics/span.ts';
import { Checker, type CheckContext, type SymbolKind } from './checker.ts';
import { checkOptions } from './options.ts';
import { DEFAULT_CHECKPOINT_INTERVAL_MS, PIPELINE_OPTIONS } from './option-tables.ts';
import { checkSource } from './sources.ts';
import { checkView } from './views.ts';
import { checkSink } from './sinks.ts';
import { checkCatalog, checkCompaction } from './catalogs.ts';
import { checkScaleOut } from './scale-out.ts';
import { checkPathNames } from './path-names.ts';

export type { CheckContext } from './checker.ts';

const KIND: Record<Exclude<Statement['kind'], 'pipeline'>, SymbolKind> = {
  source: 'source',
  view: 'view',
  sink: 'sink',
  catalog: 'catalog',
  compaction: 'compaction policy',
};

export async function checkPipeline(file: PipeFile, ctx: CheckContext): Promise<PlanDoc | null> {
  try {
    return await checkFile(file, ctx);
  } catch (e) {
    // A bug in the checker must not surface as a stack trace: report it like any diagnostic.
    ctx.diagnostics.report('internal-error', file.span, { detail: `checker: ${(e as Error).message}` });
    return null;
  }
}

/** Syntax errors inside a statement mean its tree is a guess: checking it would only add noise. */
const FRONT_END_ERROR = /^(syntax-|yaml-|unknown-type$)/;

async function checkFile(file: PipeFile, ctx: CheckContext): Promise<PlanDoc | null> {
  const ck = new Checker(ctx);
  const broken = new Set<Statement>();
  for (const d of ctx.diagnostics.items) {
    if (d.severity !== 'error' || !FRONT_END_ERROR.test(d.code)) continue;
    for (const st of file.statements) {
      if (d.span.file === st.span.file && d.span.start.offset >= st.span.start.offset && d.span.start.offset <= st.span.end.offset) broken.add(st);
    }
  }
  const bag = ck.bag;

  // ---- declarations (one namespace), the PIPELINE statement
  let pipelineName: string | null = null;
  let checkpointMs = DEFAULT_CHECKPOINT_INTERVAL_MS;
  let pipelineOptions: Record<string, IrOption> = {};
  let scaleOutSpan: Span | null = null;
  let seenPipeline = false;
  for (const st of file.statements) {
    if (st.kind === 'pipeline') {
      if (seenPipeline) {
        bag.report('duplicate-pipeline', st.span, {});
        continue;
      }
      seenPipeline = true;
      pipelineName = st.name.name;
      const opts = checkOptions(st.options, PIPELINE_OPTIONS, `PIPELINE ${st.name.name}`, st.name.span, bag);
      checkpointMs = opts.number('checkpoint_interval') ?? DEFAULT_CHECKPOINT_INTERVAL_MS;
      pipelineOptions = opts.ir;
      // The runtime reads scale_out as written in the IR: store the checked, lower-cased value
      // (never a `${VAR}` template, which would be substituted again at run time, unchecked).
      const scaleOut = opts.string('scale_out');
      if (scaleOut !== undefined) {
        pipelineOptions['scale_out'] = { value: scaleOut, template: scaleOut, envVars: [] };
        scaleOutSpan = opts.valueSpan('scale_out', st.name.span);
      } else delete pipelineOptions['scale_out'];
      continue;
    }
    const prev = ck.lookup(st.name);
    if (prev && sameName(prev.name, st.name)) {
      bag.report('duplicate-name', st.name.span, { name: st.name.name, kind: prev.kind }, { labels: [{ span: prev.stmt.name.span, message: 'first declared here' }] });
      continue;
    }
    ck.symbols.set(st.name.name, { kind: KIND[st.kind], name: st.name.name, stmt: st });
  }
  const registered = (st: Statement): boolean => st.kind !== 'pipeline' && ck.symbols.get(st.name.name)?.stmt === st;
  for (const st of broken) if (st.kind === 'view' && registered(st)) ck.failedViews.add(st.name.name);
  const declared = (st: Statement): boolean => registered(st) && !broken.has(st);

  // ---- catalogs and sources
  const catalogs: IrCatalog[] = [];
  for (const st of file.statements) {
    if (st.kind === 'catalog' && declared(st)) {
      const c = checkCatalog(ck, st);
      if (c) catalogs.push(c);
    }
  }
  for (const st of file.statements) if (st.kind === 'source' && declared(st)) await checkSource(ck, st);

  // ---- views, in dependency order (a view may read a view declared after it)
  const views = file.statements.filter((s): s is Extract<Statement, { kind: 'view' }> => s.kind === 'view' && declared(s));
  const viewByName = new Map(views.map((v) => [v.name.name, v]));
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, path: string[]): void => {
    const v = viewByName.get(name)!;
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') {
      const cycle = [...path.slice(path.indexOf(name)), name];
      bag.report('view-cycle', v.name.span, { names: cycle.join(' → ') });
      for (const n of cycle) ck.failedViews.add(n);
      return;
    }
    state.set(name, 'visiting');
    for (const ref of relationRefs(v.query)) {
      const sym = ck.lookup(ref);
      if (sym?.kind === 'view') visit(sym.name, [...path, name]);
    }
    state.set(name, 'done');
    if (!ck.failedViews.has(name)) checkView(ck, v);
  };
  for (const v of views) visit(v.name.name, []);

  // ---- sinks, then compaction policies
  const sinks = new Map<string, IrSink>();
  for (const st of file.statements) {
    if (st.kind === 'sink' && declared(st)) {
      const s = checkSink(ck, st, checkpointMs);
      if (s) sinks.set(s.name, s);
    }
  }
  const compactions: IrCompaction[] = [];
  for (const st of file.statements) {
    if (st.kind === 'compaction' && declared(st)) {
      const c = checkCompaction(ck, st, sinks);
      if (c) compactions.push(c);
    }
  }

  if (file.statements.length === 0 && bag.hasErrors) return null;
  const irViews: IrView[] = views.flatMap((v) => {
    const s = ck.viewStreams.get(v.name.name);
    return s ? [{ name: v.name.name, operator: s.op.id, span: v.span }] : [];
  });
  const plan: PlanDoc = {
    irVersion: IR_VERSION,
    pipeline: {
      name: pipelineName ?? baseName(ctx.relFile),
      file: ctx.relFile.replace(/\\/g, '/'),
      syntax: file.source,
      checkpointIntervalMs: checkpointMs,
      options: pipelineOptions,
    },
    catalogs,
    sources: [...ck.sources.values()].map((s) => s.ir),
    operators: ck.operators,
    views: irViews,
    sinks: [...sinks.values()],
    compactions,
  };
  // Names that targets turn into file names must be safe path segments (docs/security.md).
  checkPathNames(file, plan, ctx.relFile, bag);
  // Whole-plan rules: what per-partition tasks cannot run (only with scale_out = 'partitions').
  if (scaleOutSpan) {
    const sourceStmts = new Map(file.statements.flatMap((st) => (st.kind === 'source' && declared(st) ? [[st.name.name, st] as const] : [])));
    checkScaleOut({ plan, bag, sourceStmts, optionSpan: scaleOutSpan });
  }
  return plan;
}

function sameName(a: string, b: Ident): boolean {
  return b.quoted ? a === b.name : a.toLowerCase() === b.name.toLowerCase();
}

function baseName(path: string): string {
  const base = path.replace(/\\/g, '/').split('/').pop() ?? path;
  return base.replace(/\.pipe\.(sql|yaml|yml)$/, '').replace(/\.[^.]+$/, '');
}

/** Names a query reads (FROM tables, window inputs, subqueries, both sides of joins). */
export function relationRefs(q: Query): Ident[] {
  const out: Ident[] = [];
  const from = (f: FromItem): void => {
    switch (f.kind) {
      case 'table':
        if (f.name.parts.length === 1) out.push(f.name.parts[0]!);
        break;
      case 'window':
        if (f.input.name.parts.length === 1) out.push(f.input.name.parts[0]!);
        break;
      case 'join':
        from(f.left);
        from(f.right);
        break;
      case 'subquery':
        out.push(...relationRefs(f.query));
        break;
    }
  };
  for (const s of q.kind === 'select' ? [q] : q.inputs) from(s.from);
  return out;
}
