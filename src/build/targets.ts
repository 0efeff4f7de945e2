// The table of targets the build driver knows. Targets plug in here and nowhere else.
import type { Target, TargetName } from '../plan/target-api.ts';
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

export function resolveTargets(requested: string): Target[] | string {
  if (requested === 'all') return TARGET_NAMES.map((n) => TARGETS[n]!);
  const out: Target[] = [];
  for (const name of requested.split(',').map((s) => s.trim())) {
    const t = TARGETS[name as TargetName];
    if (!t) return `unknown target '${name}' (targets: ${TARGET_NAMES.join(', ')}, all)`;
    out.push(t);
  }
  return out;
}
