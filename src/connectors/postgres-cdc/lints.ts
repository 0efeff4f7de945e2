// Lint: a PostgreSQL CDC source without `heartbeat` (an idle slot retains WAL on the server).
import type { ConnectorLint } from '../descriptor.ts';

export const cdcHeartbeat: ConnectorLint = {
  code: 'cdc-without-heartbeat',
  run({ plan, diags }) {
    for (const s of plan.sources) {
      if (s.connector !== 'postgres-cdc') continue;
      const hb = s.options['heartbeat']?.value.trim();
      if (hb === undefined || hb === '' || /^0+(\s*[a-z]+)?$/i.test(hb)) diags.report('cdc-without-heartbeat', s.span, { source: s.name });
    }
  },
};
