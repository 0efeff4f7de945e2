// `pipec plan --format text`: a readable tree per sink (operator, keys, changelog mode, state
// bound in words), then the watermark path from each source. Deterministic: plan order only.
import type { IrOperator, IrSource, PlanDoc } from '../ir.ts';
import { changelogText, operatorParts, operatorState, sinkTarget, watermarkText } from './describe.ts';
import { formatDuration } from './format.ts';
import { displayText } from '../../util/unsafe-text.ts';
import { shownPlan } from './shown.ts';

interface Ctx {
  ops: Map<string, IrOperator>;
  sources: Map<string, IrSource>;
  views: Map<string, string[]>;
  shown: Set<string>;
  lines: string[];
}

function opLine(o: IrOperator, ctx: Ctx): string {
  const views = ctx.views.get(o.id);
  const named = views ? ` (view ${views.join(', ')})` : '';
  return `${o.op} ${o.id}${named}: ${operatorParts(o, ctx.sources).join('; ')} [${changelogText(o.changelog, o.upsertKey)}; ${operatorState(o)}]`;
}

/** Prints `id` and, the first time it is shown, the operators it reads, as a tree. */
function printTree(id: string, prefix: string, last: boolean, label: string, ctx: Ctx): void {
  const branch = last ? '└─ ' : '├─ ';
  const o = ctx.ops.get(id);
  if (!o) {
    ctx.lines.push(`${prefix}${branch}${label}${id} (missing)`);
    return;
  }
  if (ctx.shown.has(id)) {
    ctx.lines.push(`${prefix}${branch}${label}${o.op} ${o.id} (shown above)`);
    return;
  }
  ctx.shown.add(id);
  ctx.lines.push(`${prefix}${branch}${label}${opLine(o, ctx)}`);
  const childPrefix = prefix + (last ? '   ' : '│  ');
  o.inputs.forEach((input, i) => {
    const side = o.op === 'interval_join' || o.op === 'temporal_join' ? (i === 0 ? 'left: ' : 'right: ') : '';
    printTree(input, childPrefix, i === o.inputs.length - 1, side, ctx);
  });
}

/**
 * The operators a source's watermark reaches, as a tree from its scans: straight chains on one
 * line joined by arrows, branches where the stream fans out, stopping where the event-time
 * column is no longer carried.
 */
function watermarkLines(plan: PlanDoc, src: IrSource): string[] {
  const reached = new Map<string, IrOperator>();
  const carriers = new Set<string>();
  for (const o of plan.operators) {
    const fromSource = o.op === 'scan' && o.source === src.id;
    if (!fromSource && !o.inputs.some((i) => carriers.has(i))) continue;
    reached.set(o.id, o);
    if (o.timeColumn) carriers.add(o.id);
  }
  const label = (o: IrOperator): string => {
    if (o.op === 'window_agg') return `${o.id} (${o.timeColumn ? `closes windows, then ${o.timeColumn}` : 'closes windows'})`;
    return `${o.id} (${o.timeColumn ?? 'time column not carried on'})`;
  };
  const children = (id: string): IrOperator[] => (carriers.has(id) ? [...reached.values()].filter((o) => o.inputs.includes(id)) : []);
  const lines = [`  ${src.name}: ${watermarkText(src)}`];
  const shown = new Set<string>();
  const render = (o: IrOperator, head: string, rest: string): void => {
    if (shown.has(o.id)) {
      lines.push(`${head}${o.id} (shown above)`);
      return;
    }
    shown.add(o.id);
    let text = label(o);
    let end = o;
    for (let next = children(end.id); next.length === 1 && !shown.has(next[0]!.id); next = children(end.id)) {
      end = next[0]!;
      shown.add(end.id);
      text += ` → ${label(end)}`;
    }
    lines.push(`${head}${text}`);
    const branches = children(end.id);
    branches.forEach((c, i) => {
      const last = i === branches.length - 1;
      render(c, `${rest}${last ? '└─ ' : '├─ '}`, `${rest}${last ? '   ' : '│  '}`);
    });
  };
  for (const o of reached.values()) if (o.op === 'scan') render(o, '    ', '    ');
  return lines;
}

export function printPlanText(planDoc: PlanDoc): string {
  // `${NAME}`-fed option values are shown as their template (shown.ts), never resolved.
  const plan = shownPlan(planDoc);
  const views = new Map<string, string[]>();
  for (const v of plan.views) views.set(v.operator, [...(views.get(v.operator) ?? []), v.name]);
  const ctx: Ctx = {
    ops: new Map(plan.operators.map((o) => [o.id, o])),
    sources: new Map(plan.sources.map((s) => [s.id, s])),
    views,
    shown: new Set(),
    lines: [],
  };
  const p = plan.pipeline;
  ctx.lines.push(`pipeline ${p.name} (${p.file}), checkpoint every ${formatDuration(p.checkpointIntervalMs)}`);

  for (const s of plan.sinks) {
    ctx.lines.push('');
    ctx.lines.push(`sink ${s.name} → ${sinkTarget(s, p.name)} [${changelogText(s.changelog, s.upsertKey)}]`);
    const feeds: [string, string][] = [...(s.input ? [[s.input, ''] as [string, string]] : []), ...s.lateFrom.map((l): [string, string] => [l, 'late rows of '])];
    feeds.forEach(([id, label], i) => printTree(id, '', i === feeds.length - 1, label, ctx));
  }
  for (const v of plan.views) {
    if (ctx.shown.has(v.operator)) continue;
    ctx.lines.push('');
    ctx.lines.push(`view ${v.name} (read by no sink)`);
    printTree(v.operator, '', true, '', ctx);
  }

  const watermarked = plan.sources.filter((s) => s.watermark);
  if (watermarked.length) {
    ctx.lines.push('');
    ctx.lines.push('watermarks');
    for (const src of watermarked) ctx.lines.push(...watermarkLines(plan, src));
  }
  // Names may hold any character: each line shows them escaped, so no name can forge a line of
  // the plan (or send terminal escape sequences to whoever reads `pipec plan`).
  return ctx.lines.map(displayText).join('\n') + '\n';
}
