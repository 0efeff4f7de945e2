// The table of targets the build driver knows. Targets plug in here and nowhere else.
import type { Target, TargetName } from '../plan/physical/target-api.ts';
import { clickhouseTarget } from '../../targets/clickhouse/index.ts';
import { runtimeTarget } from '../../targets/runtime/target.ts';
import { icebergTarget } from '../../targets/iceberg/index.ts';
import { flinkTarget } from '../../targets/flink/index.ts';

export const TARGETS: Partial<Record<TargetName, Target>> = {
  clickhouse: clickhouseTarget,
  iceberg: icebergTarget,
  runtime: runtimeTarget,
  flink: flinkTarget,
};

export const TARGET_NAMES = Object.keys(TARGETS).sort() as TargetName[];

/**
 * Targets `all` leaves out: built, checked and diffed only when named (`--target flink`,
 * `--target all,flink`). The Flink target reports what a spec would lose on Flink, which must
 * not fail `check --deny-warnings` of pipelines that never go there.
 */
export const OPT_IN_TARGETS: ReadonlySet<TargetName> = new Set<TargetName>(['flink']);

/** The targets of `all`. */
export const DEFAULT_TARGET_NAMES = TARGET_NAMES.filter((n) => !OPT_IN_TARGETS.has(n));

export function resolveTargets(requested: string): Target[] | string {
  const out: Target[] = [];
  for (const name of requested.split(',').map((s) => s.trim())) {
    const names = name === 'all' ? DEFAULT_TARGET_NAMES : [name as TargetName];
    for (const n of names) {
      const t = TARGETS[n];
      if (!t) return `unknown target '${name}' (targets: ${TARGET_NAMES.join(', ')}, all = ${DEFAULT_TARGET_NAMES.join(', ')})`;
      if (!out.includes(t)) out.push(t);
    }
  }
  return out;
}
