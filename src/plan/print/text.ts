// `pipec plan --format text`: a readable tree per sink (operator, keys, changelog mode, state
// bound in words), then the watermark path from each source. Deterministic: plan order only.
import type { IrOperator, IrSource, PlanDoc } from '../ir.ts';
import { changelogText, operatorParts, operatorState, sinkTarget, watermarkText } from './describe.ts';
import { formatDuration } from './format.ts';

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

function watermarkLines(plan: PlanDoc, src: IrSource): string[] {
  const carriers = new Set<string>();
  const path: string[] = [];
  for (const o of plan.operators) {
    const fromSource = o.op === 'scan' && o.source === src.id;
    if (!fromSource && !o.inputs.some((i) => carriers.has(i))) continue;
    let note: string;
    if (o.op === 'window_agg') note = o.timeColumn ? `closes windows, then ${o.timeColumn}` : 'closes windows';
    else if (o.timeColumn) note = o.timeColumn;
    else note = 'time column not carried on';
    path.push(`${o.id} (${note})`);
    if (o.timeColumn) carriers.add(o.id);
  }
  const lines = [`  ${src.name}: ${watermarkText(src)}`];
  if (path.length) lines.push(`    ${path.join(' → ')}`);
  return lines;
}

export function printPlanText(plan: PlanDoc): string {
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
    ctx.lines.push(`sink ${s.name} → ${sinkTarget(s)} [${changelogText(s.changelog, s.upsertKey)}]`);
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
  return ctx.lines.join('\n') + '\n';
}
