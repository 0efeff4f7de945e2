// A ConnectorContext for the scale-out sink tests: what the runner hands a sink factory, with
// the member id set (or null for a single-process run). Sinks are built through the registered
// factories so that the wiring from `ctx.member` to each sink is what the tests exercise.
import type { ConnectorContext } from '../../../targets/runtime/lib/connectors.ts';

export interface TestContext extends ConnectorContext {
  warnings: string[];
}

export function memberContext(o: {
  pipeline: string;
  member: string | null;
  checkpointDir: string | null;
  baseDir?: string;
  env?: Record<string, string | undefined>;
  positions?: () => Record<string, unknown>;
}): TestContext {
  const warnings: string[] = [];
  return {
    baseDir: o.baseDir ?? process.cwd(),
    env: o.env ?? {},
    stdout: () => undefined,
    pipeline: o.pipeline,
    sourcePositions: o.positions ?? (() => ({})),
    warn: (m) => warnings.push(m),
    requestCheckpoint: () => undefined,
    checkpointDir: o.checkpointDir,
    member: o.member,
    warnings,
  };
}
