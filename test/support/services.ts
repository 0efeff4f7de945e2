// Starts (or finds already running) the real test services via test/services/services and returns their
// connection settings from test/services/.state/env. Tests fail loudly when a service cannot start; they never skip.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './venv.ts';

export type ServiceName = 'kafka' | 'postgres' | 'clickhouse';

const servicesScript = path.join(repoRoot, 'test', 'services', 'services');
export const servicesEnvFile = path.join(repoRoot, 'test', 'services', '.state', 'env');

/** Keys each service writes; ensureServices checks they are present after `up`. */
const requiredKeys: Record<ServiceName, string> = {
  kafka: 'PIPEC_KAFKA_BROKERS',
  postgres: 'PIPEC_PG_URL',
  clickhouse: 'PIPEC_CLICKHOUSE_URL',
};

const started = new Map<ServiceName, Promise<void>>();

/** Parses the KEY=VALUE lines of .state/env (comments and blank lines ignored). */
export function readServicesEnv(file: string = servicesEnvFile): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (line.startsWith('#') || eq <= 0) continue;
    env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return env;
}

function up(name: ServiceName): Promise<void> {
  return new Promise((resolve, reject) => {
    // `up` is idempotent and cheap when the service already runs; it installs on first use (can take minutes).
    execFile('bash', [servicesScript, 'up', name], { maxBuffer: 64 << 20, timeout: 20 * 60_000 }, (err, stdout, stderr) => {
      if (err) {
        reject(new Error(`test service '${name}' failed to start (test/services/services up ${name}):\n${stdout}${stderr}`));
      } else {
        resolve();
      }
    });
  });
}

/** Ensures each named service runs and returns all settings from .state/env (PIPEC_KAFKA_BROKERS, PIPEC_PG_URL, ...). */
export async function ensureServices(names: readonly ServiceName[]): Promise<Record<string, string>> {
  // Sequential: the services share two cores and a first install is heavy; each `up` holds its own lock anyway.
  for (const name of names) {
    let p = started.get(name);
    if (!p) {
      p = up(name);
      started.set(name, p);
      p.catch(() => started.delete(name));
    }
    await p;
  }
  const env = readServicesEnv();
  for (const name of names) {
    if (!env[requiredKeys[name]]) {
      throw new Error(`test service '${name}' reported up but ${requiredKeys[name]} is missing from ${servicesEnvFile}`);
    }
  }
  return env;
}
