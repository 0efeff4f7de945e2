// The one registry of diagnostic codes: every message text lives in ./codes/*.ts, merged here.
// `pipec explain CODE` and the README's code tables read this.
import type { DiagnosticDef } from './diagnostic.ts';
import { coreCodes } from './codes/core.ts';
import { syntaxCodes } from './codes/syntax.ts';
import { yamlCodes } from './codes/yaml.ts';
import { schemaCodes } from './codes/schema.ts';
import { checkCodes } from './codes/check.ts';
import { lintCodes } from './codes/lint.ts';
import { planCodes } from './codes/plan.ts';
import { clickhouseCodes } from './codes/clickhouse.ts';
import { icebergCodes } from './codes/iceberg.ts';
import { runtimeCodes } from './codes/runtime.ts';
import { flinkCodes } from './codes/flink.ts';
import { testCodes } from './codes/test.ts';

export const CODES = {
  ...coreCodes,
  ...syntaxCodes,
  ...yamlCodes,
  ...schemaCodes,
  ...checkCodes,
  ...lintCodes,
  ...planCodes,
  ...clickhouseCodes,
  ...icebergCodes,
  ...runtimeCodes,
  ...flinkCodes,
  ...testCodes,
} as const;

export type Code = keyof typeof CODES;
export type ParamsOf<C extends Code> = (typeof CODES)[C] extends DiagnosticDef<infer P> ? P : never;

export function lookupCode(code: string): DiagnosticDef<any> | undefined {
  // `pipec explain constructor` must not find Object.prototype.constructor.
  return Object.hasOwn(CODES, code) ? (CODES as Record<string, DiagnosticDef<any>>)[code] : undefined;
}
