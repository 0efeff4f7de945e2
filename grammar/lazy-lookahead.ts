// Chevrotain's LL(k) lookahead, computed on first use instead of in performSelfAnalysis. The
// eager computation of every OR/OPTION/MANY lookahead function was most of a cold `pipec check`
// (~0.3 s); a spec only reaches part of the grammar, and each function comes out the same
// (same rule, occurrence and k) whenever it is built. Validations (tests) are unchanged.
import { LLkLookaheadStrategy, type ILookaheadStrategy } from 'chevrotain';

type Strategy = Required<ILookaheadStrategy>;
type AltOptions = Parameters<Strategy['buildLookaheadForAlternation']>[0];
type OptOptions = Parameters<Strategy['buildLookaheadForOptional']>[0];
type AltFn = ReturnType<Strategy['buildLookaheadForAlternation']>;
type OptFn = ReturnType<Strategy['buildLookaheadForOptional']>;

export class LazyLookaheadStrategy implements ILookaheadStrategy {
  private readonly llk: ILookaheadStrategy;

  constructor(options: { maxLookahead: number }) {
    this.llk = new LLkLookaheadStrategy(options);
  }

  validate(options: Parameters<Strategy['validate']>[0]): ReturnType<Strategy['validate']> {
    return this.llk.validate(options);
  }

  buildLookaheadForAlternation(options: AltOptions): AltFn {
    let real: AltFn | null = null;
    const llk = this.llk;
    // Chevrotain calls it with the parser as `this`.
    return function (this: unknown, alts) {
      real ??= llk.buildLookaheadForAlternation(options);
      return real.call(this, alts);
    };
  }

  buildLookaheadForOptional(options: OptOptions): OptFn {
    let real: OptFn | null = null;
    const llk = this.llk;
    return function (this: unknown) {
      real ??= llk.buildLookaheadForOptional(options);
      return real.call(this);
    };
  }
}
