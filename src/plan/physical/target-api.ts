// The interface every target implements. The build driver (src/build/) calls `emit` with a
// checked, optimized plan; a target returns files relative to `generated/<pipeline>/` and
// reports through the diagnostics API ("this target can't express that" is a coded
// diagnostic, never a silent change of meaning).
import type { DiagnosticBag } from '../../diagnostics/bag.ts';
import type { PlanDoc } from '../ir.ts';
import type { PhysicalPlan } from './types.ts';

export type TargetName = 'clickhouse' | 'iceberg' | 'runtime' | 'flink';

export interface EmittedFile {
  /** Relative to the pipeline's output folder, forward slashes, e.g. `clickhouse.sql`. */
  path: string;
  contents: string | Uint8Array;
  /**
   * 'bundle': a runnable build product, not something to review — written under the bundle
   * folder (`<bundleDir>/<pipeline>/<path>`, git-ignored), never compared by `build --check`.
   * Absent: a reviewable file under `generated/<pipeline>/`.
   */
  output?: 'bundle';
}

export interface TargetContext {
  diagnostics: DiagnosticBag;
  /**
   * Reads a file previously generated for this pipeline (e.g. the Iceberg field-id lock),
   * relative to the pipeline's output folder; null when absent.
   */
  readPrevious(path: string): string | null;
  /**
   * True when only the diagnostics are wanted (`pipec check`): a target may skip work that
   * cannot report anything (the runtime skips its bundle); the files it returns are dropped.
   */
  diagnosticsOnly?: boolean;
  /**
   * The plan's physical lowering (src/plan/physical/), made once by the build driver: every
   * physical decision and resolved connector config a target realises comes from here. When
   * absent (a test calling a target directly), the target lowers the plan itself.
   */
  physical?: PhysicalPlan;
}

export interface Target {
  name: TargetName;
  /** Which sink connectors or source connectors this target has something to say about. */
  appliesTo(plan: PlanDoc): boolean;
  emit(plan: PlanDoc, ctx: TargetContext): Promise<EmittedFile[]>;
}
