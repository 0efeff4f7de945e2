// Optimizer pass: pane sizes of window aggregates. A HOP window is sliced into panes of
// gcd(slide, size) so that each event updates exactly one pane and a window is merged from
// size/pane panes when it fires; CUMULATE windows grow by `step`; a TUMBLE window is one pane;
// SESSION windows have no fixed panes.
import type { IrOperator, IrWindow, PlanDoc } from '../ir.ts';
import { assertNever } from '../../util/assert-never.ts';

export function gcd(a: number, b: number): number {
  let x = Math.abs(a);
  let y = Math.abs(b);
  while (y) [x, y] = [y, x % y];
  return x;
}

export function paneSize(w: IrWindow): number | null {
  switch (w.kind) {
    case 'tumble':
      return w.sizeMs;
    case 'hop':
      return gcd(w.slideMs, w.sizeMs);
    case 'cumulate':
      return w.stepMs;
    case 'session':
      return null;
    default:
      return assertNever(w);
  }
}

export function setPaneSizes(plan: PlanDoc): PlanDoc {
  return {
    ...plan,
    operators: plan.operators.map((o): IrOperator => (o.op === 'window_agg' ? { ...o, paneMs: paneSize(o.window) } : o)),
  };
}
