// Profiles of connection values (LANGUAGE.md "Profiles"): `pipec.yaml` at the project root
// holds named profiles; `--profile NAME` picks one (else `default_profile`); the environment
// overrides both. Values resolve `${NAME}` in specs; they are never written to generated files.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { EnvResolver } from '../syntax/front-end.ts';

export type { EnvResolver };

export interface ProjectConfig {
  /** Folder holding pipec.yaml, or the starting folder when there is none. */
  root: string;
  profiles: Record<string, Record<string, string>>;
  defaultProfile: string | null;
  /**
   * The project's spec folders (`specs:` in pipec.yaml, relative to its folder; default
   * `specs`), absolute: what check, build and fmt work on when given no path.
   */
  specs: string[];
  /**
   * `targets:` in pipec.yaml: what check and build use when `--target` is not given (names as
   * --target takes them, joined by commas), e.g. `all,flink` for a project that runs on Flink.
   * Default `all` (every target but the opt-in ones).
   */
  targets?: string;
}

export class ProfileError extends Error {}

/** The spec folder when pipec.yaml names none (the layout `pipec build` always assumed). */
export const DEFAULT_SPECS = 'specs';

export function findProjectConfig(startDir: string): ProjectConfig {
  let dir = startDir;
  for (;;) {
    const file = join(dir, 'pipec.yaml');
    if (existsSync(file)) return parseConfig(file, dir);
    const up = dirname(dir);
    if (up === dir) return { root: startDir, profiles: {}, defaultProfile: null, specs: [resolve(startDir, DEFAULT_SPECS)], targets: 'all' };
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
  const obj = (doc ?? {}) as { profiles?: Record<string, Record<string, unknown>>; default_profile?: string; specs?: unknown; targets?: unknown };
  const profiles: Record<string, Record<string, string>> = {};
  for (const [name, values] of Object.entries(obj.profiles ?? {})) {
    profiles[name] = {};
    for (const [k, v] of Object.entries(values ?? {})) profiles[name]![k] = String(v);
  }
  const specs = obj.specs === undefined || obj.specs === null ? [DEFAULT_SPECS] : typeof obj.specs === 'string' ? [obj.specs] : obj.specs;
  if (!Array.isArray(specs) || specs.length === 0 || !specs.every((x) => typeof x === 'string' && x !== '')) {
    throw new ProfileError(`${file}: 'specs' must be a folder or a list of folders (relative to pipec.yaml), e.g. specs: [specs]`);
  }
  // Names are checked where they are used (resolveTargets), with the same message as --target's.
  const targets = obj.targets === undefined || obj.targets === null ? ['all'] : typeof obj.targets === 'string' ? [obj.targets] : obj.targets;
  if (!Array.isArray(targets) || targets.length === 0 || !targets.every((x) => typeof x === 'string' && /^[a-z,]+$/.test(x))) {
    throw new ProfileError(`${file}: 'targets' must be a target name or a list of them (clickhouse, flink, iceberg, runtime, all), e.g. targets: [all, flink]`);
  }
  return { root, profiles, defaultProfile: obj.default_profile ?? null, specs: (specs as string[]).map((x) => resolve(root, x)), targets: (targets as string[]).join(',') };
}

/**
 * Every variable the active profile defines, overlaid by the environment: the one resolution
 * all commands share. `check`/`build`/`plan`/`diff`/`compact` read it through `envResolver`,
 * `pipec run` hands the same record to the runtime, so a spec that checks also runs.
 */
export function profileEnv(config: ProjectConfig, profile: string | null, env: NodeJS.ProcessEnv): Record<string, string | undefined> {
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
  const merged: Record<string, string | undefined> = { ...values };
  for (const [k, v] of Object.entries(env)) if (v !== undefined) merged[k] = v;
  return merged;
}

export function envResolver(config: ProjectConfig, profile: string | null, env: NodeJS.ProcessEnv): EnvResolver {
  return resolverOf(profileEnv(config, profile, env));
}

export function resolverOf(values: Record<string, string | undefined>): EnvResolver {
  return { get: (key) => (Object.prototype.hasOwnProperty.call(values, key) ? values[key] : undefined) };
}
