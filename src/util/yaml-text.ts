// YAML text the compiler generates (the Flink deployment, the alert rules), written with
// js-yaml's `dump`: 2–4× faster than `yaml`'s stringify on these documents, of which a 1,000-spec
// build writes 2,000 (a fifth of its CPU before the switch; figures in README "Dependencies").
// `yaml` stays the spec parser: it keeps source positions and comments, which writing needs not.
import { dump } from 'js-yaml';

export interface YamlTextOptions {
  /** Every string value double-quoted, whatever it holds (keys stay plain where they can). */
  quoteAllStrings?: boolean;
}

/**
 * One YAML document for `value`: block style, keys in insertion order, no line folding (a
 * reviewer's diff shows the changed line, not a reflowed paragraph), no anchors (an object used
 * twice is written twice), strings that need quotes in double quotes, undefined keys left out.
 */
export function yamlText(value: unknown, opts: YamlTextOptions = {}): string {
  return dump(value, { lineWidth: -1, noRefs: true, quotingType: '"', forceQuotes: opts.quoteAllStrings ?? false, skipInvalid: true });
}
