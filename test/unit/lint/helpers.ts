// Shared helpers of the lint tests: run the lints on a plan and pick diagnostics by code.
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import type { Diagnostic } from '../../../src/diagnostics/diagnostic.ts';
import { lintPipeline } from '../../../src/lint/index.ts';
import type { PlanDoc } from '../../../src/plan/ir.ts';

export function lint(plan: PlanDoc, bag = new DiagnosticBag()): Diagnostic[] {
  lintPipeline(plan, bag);
  return bag.items;
}

export function codes(plan: PlanDoc): string[] {
  return lint(plan).map((d) => d.code).sort();
}

export function only(plan: PlanDoc, code: string): Diagnostic[] {
  return lint(plan).filter((d) => d.code === code);
}
