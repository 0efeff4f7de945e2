// The parser's LL(k) lookahead paths, computed at build time instead of at start-up. Chevrotain
// derives, for every OR/OPTION/MANY/AT_LEAST_ONE of the grammar, the token sequences that choose
// each alternative; that analysis (plus building the functions) was most of the parser's share of
// a cold `pipec check`. `computeLookaheadTable` runs the same analysis through Chevrotain's public
// `getLookaheadPaths`; `npm run build` (scripts/lookahead-table.mjs) writes it to
// lookahead-table.gen.json, and test/unit/grammar/lookahead-table.test.ts fails when that file
// no longer matches the grammar. `PrecomputedLookaheadStrategy` turns the stored paths into
// lookahead functions; a production the table lacks (or stored with another k) falls back to
// Chevrotain's own strategy, built on first use (lazy-lookahead.ts).
import {
  Alternation,
  Alternative,
  NonTerminal,
  Option,
  Repetition,
  RepetitionMandatory,
  RepetitionMandatoryWithSeparator,
  RepetitionWithSeparator,
  Rule,
  Terminal,
  getLookaheadPaths,
  tokenMatcher,
  type IProduction,
  type ILookaheadStrategy,
  type IToken,
  type TokenType,
} from 'chevrotain';
import { LazyLookaheadStrategy } from './lazy-lookahead.ts';

/** Chevrotain's name of a production kind (what `getLookaheadPaths` and the strategy are given). */
type ProdType = 'Alternation' | 'Option' | 'Repetition' | 'RepetitionMandatory' | 'RepetitionMandatoryWithSeparator' | 'RepetitionWithSeparator';

/**
 * `<rule>/<prodType>/<occurrence>` → the k it was computed with and, per alternative (one for
 * the optional kinds: the paths that enter it), its paths as token names.
 */
export interface LookaheadTable {
  [key: string]: { k: number; alts: string[][][] };
}

const keyOf = (rule: string, prodType: ProdType, occurrence: number): string => `${rule}/${prodType}/${occurrence}`;

function prodTypeOf(p: IProduction): ProdType | null {
  if (p instanceof Alternation) return 'Alternation';
  if (p instanceof Option) return 'Option';
  if (p instanceof Repetition) return 'Repetition';
  if (p instanceof RepetitionMandatory) return 'RepetitionMandatory';
  if (p instanceof RepetitionMandatoryWithSeparator) return 'RepetitionMandatoryWithSeparator';
  if (p instanceof RepetitionWithSeparator) return 'RepetitionWithSeparator';
  return null;
}

/** The table of a parser's grammar (its recorded GAST), in rule order then production order. */
export function computeLookaheadTable(rules: Record<string, Rule>, maxLookahead: number): LookaheadTable {
  const table: LookaheadTable = {};
  for (const rule of Object.values(rules)) {
    const walk = (prods: IProduction[]): void => {
      for (const p of prods) {
        // A sub-rule call's productions belong to that rule (visited on its own); a terminal has none.
        if (p instanceof NonTerminal || p instanceof Terminal) continue;
        const type = prodTypeOf(p);
        if (type) {
          const { idx, maxLookahead: own } = p as IProduction & { idx: number; maxLookahead?: number };
          const k = own || maxLookahead;
          const seqs = getLookaheadPaths({ occurrence: idx, rule, prodType: type, maxLookahead: k });
          // For the optional kinds Chevrotain decides on the first sequence (entering the production).
          const alts = type === 'Alternation' ? seqs : seqs.slice(0, 1);
          table[keyOf(rule.name, type, idx)] = { k, alts: alts.map((alt) => alt.map((path) => path.map((t) => t.name))) };
        }
        if (p instanceof Alternative || type) walk((p as unknown as { definition: IProduction[] }).definition);
      }
    };
    walk(rule.definition);
  }
  return table;
}

/** The table as lookahead-table.gen.json holds it: one entry a line, so a grammar change diffs readably. */
export function lookaheadTableText(table: LookaheadTable): string {
  const lines = Object.entries(table).map(([key, entry]) => `  ${JSON.stringify(key)}: ${JSON.stringify(entry)}`);
  return lines.length ? `{\n${lines.join(',\n')}\n}\n` : '{}\n';
}

type Strategy = Required<ILookaheadStrategy>;
type AltOptions = Parameters<Strategy['buildLookaheadForAlternation']>[0];
type OptOptions = Parameters<Strategy['buildLookaheadForOptional']>[0];
type AltFn = ReturnType<Strategy['buildLookaheadForAlternation']>;
type OptFn = ReturnType<Strategy['buildLookaheadForOptional']>;
/** What a lookahead function needs of the parser it is called on. */
type Recognizer = { LA(i: number): IToken };

const matches = (parser: Recognizer, path: TokenType[]): boolean => {
  for (let i = 0; i < path.length; i++) if (!tokenMatcher(parser.LA(i + 1), path[i]!)) return false;
  return true;
};

/** tokenTypeIdx → the first alternative whose one-token paths accept it (categories included). */
function firstTokenChoice(alts: TokenType[][][]): Map<number, number> {
  const choice = new Map<number, number>();
  alts.forEach((alt, i) => {
    for (const [t] of alt) {
      for (const idx of [t!.tokenTypeIdx!, ...(t!.categoryMatches ?? [])]) if (!choice.has(idx)) choice.set(idx, i);
    }
  });
  return choice;
}

export class PrecomputedLookaheadStrategy implements ILookaheadStrategy {
  private readonly fallback: LazyLookaheadStrategy;
  private readonly tokens: Map<string, TokenType>;

  constructor(
    private readonly table: LookaheadTable,
    tokens: TokenType[],
    options: { maxLookahead: number },
  ) {
    this.fallback = new LazyLookaheadStrategy(options);
    this.tokens = new Map(tokens.map((t) => [t.name, t]));
  }

  validate(options: Parameters<Strategy['validate']>[0]): ReturnType<Strategy['validate']> {
    return this.fallback.validate(options);
  }

  /** The stored paths as token types; null when the table has no entry for these options. */
  private stored(rule: string, type: ProdType, occurrence: number, k: number): TokenType[][][] | null {
    const entry = this.table[keyOf(rule, type, occurrence)];
    if (!entry || entry.k !== k) return null;
    const alts: TokenType[][][] = [];
    for (const alt of entry.alts) {
      const paths: TokenType[][] = [];
      for (const path of alt) {
        const types: TokenType[] = [];
        for (const name of path) {
          const t = this.tokens.get(name);
          if (!t) return null; // a token renamed since the table was written
          types.push(t);
        }
        paths.push(types);
      }
      alts.push(paths);
    }
    return alts;
  }

  buildLookaheadForAlternation(options: AltOptions): AltFn {
    const alts = options.dynamicTokensEnabled ? null : this.stored(options.rule.name, 'Alternation', options.prodOccurrence, options.maxLookahead);
    if (!alts) return this.fallback.buildLookaheadForAlternation(options);
    if (!options.hasPredicates && alts.every((alt) => alt.every((path) => path.length === 1))) {
      const choice = firstTokenChoice(alts);
      return function (this: Recognizer) {
        return choice.get(this.LA(1).tokenTypeIdx);
      };
    }
    const gated = options.hasPredicates;
    // The first alternative (its gate open, when it has one) with a path matching the next tokens.
    return function (this: Recognizer, orAlts) {
      for (let i = 0; i < alts.length; i++) {
        const gate = gated ? orAlts?.[i]?.GATE : undefined;
        if (gate !== undefined && gate.call(this) === false) continue;
        for (const path of alts[i]!) if (matches(this, path)) return i;
      }
      return undefined;
    };
  }

  buildLookaheadForOptional(options: OptOptions): OptFn {
    const found = options.dynamicTokensEnabled ? null : this.stored(options.rule.name, options.prodType as ProdType, options.prodOccurrence, options.maxLookahead);
    if (!found) return this.fallback.buildLookaheadForOptional(options);
    const paths = found[0] ?? [];
    if (paths.every((path) => path.length === 1)) {
      const accepted = new Set<number>();
      for (const [t] of paths) for (const idx of [t!.tokenTypeIdx!, ...(t!.categoryMatches ?? [])]) accepted.add(idx);
      return function (this: Recognizer) {
        return accepted.has(this.LA(1).tokenTypeIdx);
      };
    }
    return function (this: Recognizer) {
      for (const path of paths) if (matches(this, path)) return true;
      return false;
    };
  }
}
