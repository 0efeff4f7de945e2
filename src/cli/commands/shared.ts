// Small pieces several commands share.
import { DiagnosticBag } from '../../diagnostics/bag.ts';
import type { Diagnostic } from '../../diagnostics/diagnostic.ts';
import { syntheticSpan } from '../../diagnostics/span.ts';

/** `file-not-found` for each missing path, `not-a-spec-file` for each file with another ending. */
export function reportMissing(missing: string[], notSpecs: string[] = []): Diagnostic[] {
  const bag = new DiagnosticBag();
  for (const path of missing) bag.report('file-not-found', syntheticSpan(path), { path });
  for (const path of notSpecs) bag.report('not-a-spec-file', syntheticSpan(path), { path });
  return bag.items;
}
