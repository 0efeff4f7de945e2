// Small pieces several commands share.
import { DiagnosticBag } from '../../diagnostics/bag.ts';
import type { Diagnostic } from '../../diagnostics/diagnostic.ts';
import { syntheticSpan } from '../../diagnostics/span.ts';

export function reportMissing(missing: string[]): Diagnostic[] {
  const bag = new DiagnosticBag();
  for (const path of missing) bag.report('file-not-found', syntheticSpan(path), { path });
  return bag.items;
}
