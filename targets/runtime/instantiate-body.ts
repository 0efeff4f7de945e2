// A generated body's pipeline definition with runtime modules from every one there is, picked
// by name (all of them by default): for tests and `pipec test`, which may use any connector.
// `pipec run` loads only the modules its plan uses instead (module-loaders.ts): importing this
// file loads every connector's library (kafkajs, pg, @clickhouse/client, ...).
import type { PipelineDef } from './lib/pipeline-types.ts';
import { ALL_MODULES } from './all-modules.ts';
import { defineBody } from './define-body.ts';

/** Default modules: all of them. */
export function instantiateBody(body: string, env: Record<string, string | undefined>, modules?: readonly string[]): PipelineDef {
  const def = defineBody(body, env);
  return { ...def, modules: modules ? ALL_MODULES.filter((m) => modules.includes(m.name)) : ALL_MODULES };
}
