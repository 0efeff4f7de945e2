// `pipec plan --format dot`: the plan as a Graphviz digraph. Sources, operators and sinks are
// nodes with multi-line labels; data edges are solid, late-data edges (ON LATE TO) dashed.
import type { PlanDoc } from '../ir.ts';
import { displayText } from '../../util/unsafe-text.ts';
import { changelogText, operatorParts, operatorState, sinkTarget, watermarkText } from './describe.ts';
import { shownPlan } from './shown.ts';

/**
 * A double-quoted dot ID or label; `\n` in the text becomes a centered line break, other unsafe
 * characters of names (src/util/unsafe-text.ts) show as `\uXXXX`.
 */
function q(text: string): string {
  const lines = text.split('\n').map((l) => displayText(l).replace(/\\/g, '\\\\').replace(/"/g, '\\"'));
  return `"${lines.join('\\n')}"`;
}

const srcNode = (name: string) => q(`source:${name}`);
const opNode = (id: string) => q(`op:${id}`);
const sinkNode = (name: string) => q(`sink:${name}`);

export function printPlanDot(planDoc: PlanDoc): string {
  // `${NAME}`-fed option values are shown as their template (shown.ts), never resolved.
  const plan = shownPlan(planDoc);
  const sources = new Map(plan.sources.map((s) => [s.id, s]));
  const lines: string[] = [
    `digraph ${q(plan.pipeline.name)} {`,
    '  rankdir=LR;',
    '  node [fontname="Helvetica", fontsize=10];',
    '  edge [fontname="Helvetica", fontsize=9];',
  ];
  for (const s of plan.sources) {
    const label = [`source ${s.name}`, `${s.connector}${s.format ? ` (${s.format})` : ''}`, `watermark: ${watermarkText(s)}`].join('\n');
    lines.push(`  ${srcNode(s.name)} [shape=cylinder, label=${q(label)}];`);
  }
  for (const o of plan.operators) {
    const views = plan.views.filter((v) => v.operator === o.id).map((v) => `view ${v.name}`);
    const label = [`${o.op} ${o.id}`, ...views, ...operatorParts(o, sources), `${changelogText(o.changelog, o.upsertKey)}; ${operatorState(o)}`].join('\n');
    const style = o.stateBound.kind === 'stateless' ? '' : ', style=bold';
    lines.push(`  ${opNode(o.id)} [shape=box${style}, label=${q(label)}];`);
  }
  for (const s of plan.sinks) {
    lines.push(`  ${sinkNode(s.name)} [shape=folder, label=${q(`sink ${s.name}\n${sinkTarget(s, plan.pipeline.name)}`)}];`);
  }
  for (const o of plan.operators) {
    if (o.op === 'scan') {
      const s = sources.get(o.source);
      if (s) lines.push(`  ${srcNode(s.name)} -> ${opNode(o.id)};`);
    }
    o.inputs.forEach((input, i) => {
      const side = o.op === 'interval_join' || o.op === 'temporal_join' ? ` [label=${q(i === 0 ? 'left' : 'right')}]` : '';
      lines.push(`  ${opNode(input)} -> ${opNode(o.id)}${side};`);
    });
  }
  for (const s of plan.sinks) {
    if (s.input) lines.push(`  ${opNode(s.input)} -> ${sinkNode(s.name)};`);
    for (const l of s.lateFrom) lines.push(`  ${opNode(l)} -> ${sinkNode(s.name)} [style=dashed, label="late"];`);
  }
  lines.push('}');
  return lines.join('\n') + '\n';
}
