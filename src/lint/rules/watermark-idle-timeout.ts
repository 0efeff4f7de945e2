// Lint: a watermark without idle_timeout on a source with several partitions (one quiet
// partition holds back the source's watermark, so windows never close).
import type { IrSource } from '../../plan/ir.ts';
import type { LintRule } from '../rule.ts';

const GLOB = /[*?[{]/;

/** How the source is split into partitions, in words, or null when it has only one. */
export function multiPartitionReason(s: IrSource): string | null {
  switch (s.connector) {
    case 'kafka': {
      // A topic declared with one partition has a single watermark.
      if (s.options['partitions']?.value.trim() === '1') return null;
      return `a Kafka topic${s.options['topic'] ? ` ('${s.options['topic'].value}')` : ''}, one watermark per partition`;
    }
    case 'file': {
      const path = s.options['path']?.value ?? '';
      return GLOB.test(path) ? `several files (path '${path}' is a glob)` : null;
    }
    case 'datagen': {
      const n = Number(s.options['partitions']?.value ?? '1');
      return Number.isFinite(n) && n > 1 ? `${n} datagen partitions` : null;
    }
    case 'postgres-cdc':
      // One replication slot is one ordered stream.
      return null;
  }
}

export const watermarkIdleTimeout: LintRule = {
  code: 'watermark-without-idle-timeout',
  run({ plan, diags }) {
    for (const s of plan.sources) {
      if (!s.watermark || s.watermark.idleTimeoutMs !== null) continue;
      const partitioning = multiPartitionReason(s);
      if (partitioning) diags.report('watermark-without-idle-timeout', s.span, { source: s.name, partitioning });
    }
  },
};
