// Profiles of connection values (LANGUAGE.md "Profiles"): `pipec.yaml` at the project root
// holds named profiles; `--profile NAME` picks one (else `default_profile`); the environment
// overrides both. Values resolve `${NAME}` in specs; they are never written to generated files.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { EnvResolver } from '../syntax/front-end.ts';

export interface ProjectConfig {
  /** Folder holding pipec.yaml, or the starting folder when there is none. */
  root: string;
  profiles: Record<string, Record<string, string>>;
  defaultProfile: string | null;
}

export class ProfileError extends Error {}

export function findProjectConfig(startDir: string): ProjectConfig {
  let dir = startDir;
  for (;;) {
    const file = join(dir, 'pipec.yaml');
    if (existsSync(file)) return parseConfig(file, dir);
    const up = dirname(dir);
    if (up === dir) return { root: startDir, profiles: {}, defaultProfile: null };
    dir = up;
  }
}

function parseConfig(file: string, root: string): ProjectConfig {
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ProfileError(`${file}: not valid YAML: ${(e as Error).message}`);
  }
  const obj = (doc ?? {}) as { profiles?: Record<string, Record<string, unknown>>; default_profile?: string };
  const profiles: Record<string, Record<string, string>> = {};
  for (const [name, values] of Object.entries(obj.profiles ?? {})) {
    profiles[name] = {};
    for (const [k, v] of Object.entries(values ?? {})) profiles[name]![k] = String(v);
  }
  return { root, profiles, defaultProfile: obj.default_profile ?? null };
}

export function envResolver(config: ProjectConfig, profile: string | null, env: NodeJS.ProcessEnv): EnvResolver {
  const name = profile ?? config.defaultProfile;
  let values: Record<string, string> = {};
  if (name !== null) {
    const found = Object.hasOwn(config.profiles, name) ? config.profiles[name] : undefined;
    if (!found) {
      const known = Object.keys(config.profiles).join(', ') || 'none';
      throw new ProfileError(`profile '${name}' is not defined in pipec.yaml (profiles: ${known})`);
    }
    values = found;
  }
  // `${constructor}` names a variable, not Object.prototype.constructor (nor process.env's).
  const own = (o: object, key: string): string | undefined => (Object.hasOwn(o, key) ? (o as Record<string, string | undefined>)[key] : undefined);
  return { get: (key) => own(env, key) ?? own(values, key) };
}
