// Reads one source's or sink's `WITH` options for a connector config resolver: string options
// keep their `${VAR}` template (generated files never hold the substituted value; the runtime
// substitutes at start), other types read the checked value. Pure: imports only durations.ts.

/** The shape of `IrOption` (src/plan/ir.ts), restated so the runtime can import this file alone. */
import { durationParts } from './durations.ts';

export interface RawOption {
  value: string;
  template: string;
  envVars: string[];
}


/** A value a resolver cannot read: the checker rejects these first, so only hand-made defs hit it. */
export class ConnectorConfigError extends Error {}

export class OptionReader {
  /** Names of resolved fields whose value is a `${VAR}` template (substituted at start). */
  readonly templated: string[] = [];

  constructor(
    private readonly opts: Record<string, RawOption>,
    /** `source 'orders'` / `sink 'out'`, for messages. */
    readonly what: string,
  ) {}

  has(key: string): boolean {
    return Object.hasOwn(this.opts, key);
  }

  /** A string option as written (its template when it uses `${VAR}`); records `field` as templated. */
  text(key: string, field: string): string | undefined {
    const o = this.opts[key];
    if (o === undefined) return undefined;
    if (o.envVars.length > 0) {
      if (!this.templated.includes(field)) this.templated.push(field);
      return o.template;
    }
    return o.value;
  }

  /** The substituted value (enums, numbers, booleans, durations: checked at compile time). */
  value(key: string): string | undefined {
    return this.opts[key]?.value.trim();
  }

  /** `shown`: the values named in the message when some accepted spellings are aliases. */
  oneOf<T extends string>(key: string, values: readonly T[], fallback: T, shown: readonly string[] = values): T {
    const v = this.value(key);
    if (v === undefined) return fallback;
    const list = shown.length > 1 ? `${shown.slice(0, -1).join(', ')} or ${shown[shown.length - 1]}` : shown.join('');
    if (!(values as readonly string[]).includes(v)) throw new ConnectorConfigError(`${this.what}: ${key} must be ${list}, not '${v}'`);
    return v as T;
  }

  int(key: string, fallback: number, min = Number.MIN_SAFE_INTEGER): number {
    const v = this.value(key);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n < min) throw new ConnectorConfigError(`${this.what}: ${key} must be an integer${min > Number.MIN_SAFE_INTEGER ? ` of at least ${min}` : ''}, not '${v}'`);
    return n;
  }

  bool(key: string, fallback: boolean): boolean {
    const v = this.value(key)?.toLowerCase();
    if (v === undefined) return fallback;
    if (v !== 'true' && v !== 'false') throw new ConnectorConfigError(`${this.what}: ${key} must be true or false, not '${v}'`);
    return v === 'true';
  }

  durationMs(key: string, fallbackMs: number): number {
    const v = this.value(key);
    if (v === undefined) return fallbackMs;
    const d = durationParts(v);
    if (!d) throw new ConnectorConfigError(`${this.what}: ${key} '${v}' is not a duration like '10 s'`);
    return Math.round(d.amount * d.unitMs);
  }
}

/** A comma-separated column list, trimmed, empty items dropped. */
export function columnList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
