// The runtime's watermark per source as a test's steps move it, for the target cases that must
// tell whether a row is late on the runtime (ClickHouse merges late rows, Flink's watermark comes
// from the rows alone): per partition the largest event time seen (or a scripted watermark plus
// the delay), minus the delay, minimum over the partitions that are not idle. One model, so the
// two cases cannot drift apart; it mirrors the runtime's source watermark rule.
import type { IrSource, PlanDoc } from '../plan/ir.ts';
import type { ScriptStep } from '../../targets/runtime/lib/testing/scripted.ts';
import type { TestCase } from './test-file.ts';

export class RuntimeWatermarks {
  private readonly parts = new Map<string, number[]>();
  private readonly idle = new Map<string, Set<number>>();

  constructor(
    private readonly plan: PlanDoc,
    private readonly c: TestCase,
  ) {}

  source(name: string): IrSource {
    return this.plan.sources.find((s) => s.name === name)!;
  }

  private partsOf(name: string): number[] {
    let p = this.parts.get(name);
    if (!p) this.parts.set(name, (p = Array.from({ length: this.c.partitions.get(name) ?? 1 }, () => Number.NEGATIVE_INFINITY)));
    return p;
  }

  /** The source's watermark now; NaN when every partition is idle (then it follows processing time, not modelled). */
  current(name: string): number {
    const s = this.source(name);
    if (!s.watermark) return Number.NEGATIVE_INFINITY;
    const idle = this.idle.get(name) ?? new Set();
    const live = this.partsOf(name).filter((_, i) => !idle.has(i));
    if (live.length === 0) return Number.NaN;
    return Math.min(...live) - s.watermark.delayMs;
  }

  /** A row of event time `t` on a partition: it moves that partition and makes it active again. */
  observe(name: string, partition: number, t: number): void {
    const parts = this.partsOf(name);
    parts[partition] = Math.max(parts[partition]!, t);
    this.idle.get(name)?.delete(partition);
  }

  /** A scripted `watermark` or `idle_partition` step. */
  apply(step: Extract<ScriptStep, { kind: 'watermark' | 'idle' }>): void {
    if (step.kind === 'idle') {
      let set = this.idle.get(step.source);
      if (!set) this.idle.set(step.source, (set = new Set()));
      set.add(step.partition);
      return;
    }
    const delay = this.source(step.source).watermark?.delayMs ?? 0;
    const parts = this.partsOf(step.source);
    for (const p of step.partition === null ? parts.keys() : [step.partition]) parts[p] = Math.max(parts[p]!, step.at + delay);
  }
}
