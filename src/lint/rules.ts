// The one table of lints, run in this order by lintPipeline. Adding a lint: one file under
// rules/, its code in src/diagnostics/codes/lint.ts, one line here.
import type { LintRule } from './rule.ts';
import { cdcHeartbeat } from './rules/cdc-heartbeat.ts';
import { constantFalseFilter } from './rules/constant-filter.ts';
import { clickhouseDedup } from './rules/clickhouse-dedup.ts';
import { distinctState } from './rules/distinct-state.ts';
import { groupKeyMessageKey, hotPartition } from './rules/group-keys.ts';
import { icebergBucketNonKey, icebergIdentityHighCardinality } from './rules/iceberg-partitioning.ts';
import { icebergSmallFiles } from './rules/iceberg-small-files.ts';
import { kafkaSinkAcks } from './rules/kafka-sink-acks.ts';
import { registryCompatibility } from './rules/registry-compatibility.ts';
import { unboundedState } from './rules/unbounded-state.ts';
import { watermarkIdleTimeout } from './rules/watermark-idle-timeout.ts';
import { joinLateUnspecified, windowLateUnspecified } from './rules/window-late.ts';

export const LINT_RULES: readonly LintRule[] = [
  // sources
  watermarkIdleTimeout,
  cdcHeartbeat,
  registryCompatibility,
  // operators
  windowLateUnspecified,
  joinLateUnspecified,
  constantFalseFilter,
  unboundedState,
  distinctState,
  groupKeyMessageKey,
  hotPartition,
  // sinks
  kafkaSinkAcks,
  clickhouseDedup,
  icebergSmallFiles,
  icebergIdentityHighCardinality,
  icebergBucketNonKey,
];
