// The pure Chevrotain grammar of `.pipe.sql` (LANGUAGE.md): labelled sub-rules, no actions.
// This file holds the statements; queries and expressions are in parser-query.ts and
// parser-expr.ts. Meaning (types, units, which call is TRIM) is given by src/syntax/sql/.
import { EOF, EarlyExitException, NoViableAltException, type IParserErrorMessageProvider, type IToken } from 'chevrotain';
import * as L from './lexer.ts';
import { recordingMessageProvider } from './message-provider.ts';
import { QueryGrammar } from './parser-query.ts';
import { PrecomputedLookaheadStrategy, type LookaheadTable } from './lookahead-table.ts';
import lookaheadTable from './lookahead-table.gen.json' with { type: 'json' };

const K = L.KW;

export interface ParserOptions {
  errorMessageProvider?: IParserErrorMessageProvider;
  /** Run Chevrotain's grammar validations (ambiguities, left recursion). Tests do; the CLI skips them. */
  validate?: boolean;
  /** Precomputed lookahead paths (default: lookahead-table.gen.json); `{}` computes them all on first use. */
  lookahead?: LookaheadTable;
}

/** Tokens of lookahead the grammar is LL(k) with (the lookahead table is computed with it). */
export const MAX_LOOKAHEAD = 2;

export class PipeSqlParser extends QueryGrammar {
  constructor(options: ParserOptions = {}) {
    super({
      recoveryEnabled: true,
      nodeLocationTracking: 'onlyOffset',
      maxLookahead: MAX_LOOKAHEAD,
      // Lookahead paths come from the table `npm run build` writes (lookahead-table.ts): start-up time.
      lookaheadStrategy: new PrecomputedLookaheadStrategy(options.lookahead ?? (lookaheadTable as LookaheadTable), [...L.allTokens, EOF], { maxLookahead: MAX_LOOKAHEAD }),
      skipValidations: options.validate !== true,
      ...(options.errorMessageProvider ? { errorMessageProvider: options.errorMessageProvider } : {}),
    });
    this.performSelfAnalysis();
    installRecoveryLimits(this);
  }

  // ------------------------------------------------------------ statements

  statement = this.RULE('statement', () => {
    this.OR([
      { ALT: () => this.SUBRULE(this.pipelineStmt) },
      { ALT: () => this.SUBRULE(this.createStmt) },
    ]);
  });

  pipelineStmt = this.RULE('pipelineStmt', () => {
    this.CONSUME(K.PIPELINE);
    this.CONSUME(L.IdentCat, { LABEL: 'name' });
    this.OPTION(() => this.SUBRULE(this.withOptions));
  });

  createStmt = this.RULE('createStmt', () => {
    this.CONSUME(K.CREATE);
    this.OR([
      { ALT: () => this.SUBRULE(this.sourceBody) },
      { ALT: () => this.SUBRULE(this.viewBody) },
      { ALT: () => this.SUBRULE(this.sinkBody) },
      { ALT: () => this.SUBRULE(this.catalogBody) },
      { ALT: () => this.SUBRULE(this.compactionBody) },
    ]);
  });

  sourceBody = this.RULE('sourceBody', () => {
    this.CONSUME(K.SOURCE);
    this.CONSUME(L.IdentCat, { LABEL: 'name' });
    this.OPTION(() => {
      this.CONSUME(L.LParen);
      this.AT_LEAST_ONE_SEP({ SEP: L.Comma, DEF: () => this.SUBRULE(this.sourceElement) });
      this.CONSUME(L.RParen);
    });
    this.OPTION2(() => this.SUBRULE(this.withOptions));
  });

  sourceElement = this.RULE('sourceElement', () => {
    this.OR([
      { ALT: () => this.SUBRULE(this.watermarkDef) },
      // `PRIMARY KEY` could also start a column named primary of a type named key; it never does.
      { ALT: () => this.SUBRULE(this.primaryKeyDef), IGNORE_AMBIGUITIES: true },
      { ALT: () => this.SUBRULE(this.columnDef) },
    ]);
  });

  watermarkDef = this.RULE('watermarkDef', () => {
    this.CONSUME(K.WATERMARK);
    this.CONSUME(K.FOR);
    this.CONSUME(L.IdentCat, { LABEL: 'column' });
    this.CONSUME(K.AS);
    this.SUBRULE(this.expr);
  });

  primaryKeyDef = this.RULE('primaryKeyDef', () => {
    this.CONSUME(K.PRIMARY);
    this.CONSUME(K.KEY);
    this.CONSUME(L.LParen);
    this.AT_LEAST_ONE_SEP({ SEP: L.Comma, DEF: () => this.CONSUME(L.IdentCat, { LABEL: 'columns' }) });
    this.CONSUME(L.RParen);
    this.OPTION(() => {
      this.CONSUME(K.NOT);
      this.CONSUME(K.ENFORCED);
    });
  });

  columnDef = this.RULE('columnDef', () => {
    this.CONSUME(L.IdentCat, { LABEL: 'name' });
    this.SUBRULE(this.dataType);
    this.OPTION(() => {
      this.CONSUME(K.METADATA);
      this.CONSUME(K.FROM);
      this.CONSUME(L.StringLit, { LABEL: 'metadataKey' });
    });
  });

  withOptions = this.RULE('withOptions', () => {
    this.CONSUME(K.WITH);
    this.CONSUME(L.LParen);
    this.AT_LEAST_ONE_SEP({ SEP: L.Comma, DEF: () => this.SUBRULE(this.optionEntry) });
    this.CONSUME(L.RParen);
  });

  optionEntry = this.RULE('optionEntry', () => {
    this.AT_LEAST_ONE_SEP({ SEP: L.Dot, DEF: () => this.CONSUME(L.AnyWord, { LABEL: 'keyPart' }) });
    this.CONSUME(L.Eq);
    this.OR([
      { ALT: () => this.CONSUME(L.StringLit) },
      {
        ALT: () => {
          this.OPTION(() => this.CONSUME(L.Minus));
          this.CONSUME(L.NumberLit);
        },
      },
      { ALT: () => this.CONSUME(K.TRUE) },
      { ALT: () => this.CONSUME(K.FALSE) },
    ]);
  });

  viewBody = this.RULE('viewBody', () => {
    this.CONSUME(K.VIEW);
    this.CONSUME(L.IdentCat, { LABEL: 'name' });
    this.OPTION(() => this.SUBRULE(this.withOptions));
    this.CONSUME(K.AS);
    this.SUBRULE(this.query);
    this.OPTION2(() => this.SUBRULE(this.emitClause));
    this.OPTION3(() => {
      this.CONSUME(K.ALLOWED);
      this.CONSUME(K.LATENESS);
      this.SUBRULE(this.intervalLit, { LABEL: 'lateness' });
    });
    this.OPTION4(() => this.SUBRULE(this.onLateClause));
  });

  emitClause = this.RULE('emitClause', () => {
    this.CONSUME(K.EMIT);
    this.OR([
      {
        ALT: () => {
          this.CONSUME(K.ON);
          this.CONSUME(K.WINDOW);
          this.CONSUME(K.CLOSE);
        },
      },
      { ALT: () => this.CONSUME(K.CHANGES) },
    ]);
  });

  onLateClause = this.RULE('onLateClause', () => {
    this.CONSUME(K.ON);
    this.CONSUME(K.LATE);
    this.OR([
      { ALT: () => this.CONSUME(K.DROP) },
      {
        ALT: () => {
          this.CONSUME(K.TO);
          this.CONSUME(L.IdentCat, { LABEL: 'target' });
        },
      },
    ]);
  });

  sinkBody = this.RULE('sinkBody', () => {
    this.CONSUME(K.SINK);
    this.CONSUME(L.IdentCat, { LABEL: 'name' });
    this.OR([
      {
        ALT: () => {
          this.CONSUME(K.FROM);
          this.SUBRULE(this.qualifiedName, { LABEL: 'from' });
          this.OPTION(() => this.SUBRULE(this.withOptions));
        },
      },
      {
        ALT: () => {
          this.CONSUME(K.AS);
          this.SUBRULE(this.query);
          this.OPTION2(() => this.SUBRULE2(this.withOptions));
        },
      },
      { ALT: () => this.SUBRULE3(this.withOptions) },
    ]);
  });

  catalogBody = this.RULE('catalogBody', () => {
    this.CONSUME(K.CATALOG);
    this.CONSUME(L.IdentCat, { LABEL: 'name' });
    // Optional so that a catalog converted from YAML without options still prints and parses;
    // the checker says which options are missing.
    this.OPTION(() => this.SUBRULE(this.withOptions));
  });

  compactionBody = this.RULE('compactionBody', () => {
    this.CONSUME(K.COMPACTION);
    this.CONSUME(K.POLICY);
    this.CONSUME(L.IdentCat, { LABEL: 'name' });
    this.CONSUME(K.ON);
    this.CONSUME2(L.IdentCat, { LABEL: 'target' });
    this.CONSUME(L.LParen);
    this.AT_LEAST_ONE_SEP({ SEP: L.Comma, DEF: () => this.SUBRULE(this.compactionAction) });
    this.CONSUME(L.RParen);
    this.OPTION(() => {
      this.CONSUME(K.SCHEDULE);
      this.CONSUME(K.EVERY);
      this.SUBRULE(this.intervalLit, { LABEL: 'schedule' });
    });
  });

  compactionAction = this.RULE('compactionAction', () => {
    this.OR([
      { ALT: () => this.SUBRULE(this.rewriteDataAction) },
      { ALT: () => this.SUBRULE(this.rewriteDeleteAction) },
      { ALT: () => this.SUBRULE(this.expireSnapshotsAction) },
      { ALT: () => this.SUBRULE(this.removeOrphansAction) },
    ]);
  });

  rewriteDataAction = this.RULE('rewriteDataAction', () => {
    this.CONSUME(K.REWRITE);
    this.CONSUME(K.DATA);
    this.CONSUME(K.FILES);
    this.OPTION(() => {
      this.CONSUME(K.WHERE);
      this.CONSUME(L.IdentCat, { LABEL: 'field' });
      this.CONSUME(L.Lt);
      this.CONSUME(L.StringLit, { LABEL: 'below' });
    });
    this.OPTION2(() => {
      this.CONSUME(K.TARGET);
      this.CONSUME2(L.StringLit, { LABEL: 'target' });
    });
    this.OPTION3(() => {
      this.CONSUME(K.MIN);
      this.CONSUME(K.INPUT);
      this.CONSUME2(K.FILES);
      this.CONSUME(L.NumberLit, { LABEL: 'minInputFiles' });
    });
  });

  rewriteDeleteAction = this.RULE('rewriteDeleteAction', () => {
    this.CONSUME(K.REWRITE);
    this.CONSUME(K.DELETE);
    this.CONSUME(K.FILES);
    this.CONSUME(K.WHERE);
    this.CONSUME(L.IdentCat, { LABEL: 'field' });
    this.CONSUME(L.Gt);
    this.CONSUME(L.NumberLit, { LABEL: 'ratio' });
    this.OPTION(() => this.CONSUME(K.PERCENT));
  });

  expireSnapshotsAction = this.RULE('expireSnapshotsAction', () => {
    this.CONSUME(K.EXPIRE);
    this.CONSUME(K.SNAPSHOTS);
    this.CONSUME(K.OLDER);
    this.CONSUME(K.THAN);
    this.SUBRULE(this.intervalLit, { LABEL: 'olderThan' });
    this.OPTION(() => {
      this.CONSUME(K.RETAIN);
      this.CONSUME(K.LAST);
      this.CONSUME(L.NumberLit, { LABEL: 'retainLast' });
    });
  });

  removeOrphansAction = this.RULE('removeOrphansAction', () => {
    this.CONSUME(K.REMOVE);
    this.CONSUME(K.ORPHAN);
    this.CONSUME(K.FILES);
    this.CONSUME(K.OLDER);
    this.CONSUME(K.THAN);
    this.SUBRULE(this.intervalLit, { LABEL: 'olderThan' });
  });
}

/** Thrown out of a parse that met MAX_RECOVERED_ERRORS errors: the statement is given up. */
export class RecoveryLimit extends Error {}

/** A statement with more errors than this is given up (only its first error is reported). */
export const MAX_RECOVERED_ERRORS = 50;

interface ParserInternals {
  _errors: unknown[];
  LA(i: number): IToken;
  SAVE_ERROR(e: Error): Error;
  raiseNoAltException(occurrence: number, msg: string | undefined): never;
  raiseEarlyExitException(occurrence: number, prodType: unknown, msg: string | undefined): never;
}

/**
 * Bounds error recovery (docs/security.md "Compiler limits"). Chevrotain builds each error's
 * "expected ..." text from lookahead paths computed afresh per error; re-syncing through a long
 * list (`IN (0, 1, ... 1000)` where no IN may stand) raised thousands of them: 45 s. Only a
 * statement's first error is reported (src/syntax/sql/index.ts), so later ones get an empty message,
 * and after MAX_RECOVERED_ERRORS the statement is abandoned.
 */
function installRecoveryLimits(parser: PipeSqlParser): void {
  const p = parser as unknown as ParserInternals;
  const save = p.SAVE_ERROR.bind(p);
  const noAlt = p.raiseNoAltException.bind(p);
  const earlyExit = p.raiseEarlyExitException.bind(p);
  p.SAVE_ERROR = (e) => {
    if (p._errors.length >= MAX_RECOVERED_ERRORS) throw new RecoveryLimit('too many syntax errors in one statement');
    return save(e);
  };
  p.raiseNoAltException = (occurrence, msg) => {
    if (p._errors.length === 0) return noAlt(occurrence, msg);
    throw p.SAVE_ERROR(new NoViableAltException('', p.LA(1), p.LA(0)));
  };
  p.raiseEarlyExitException = (occurrence, prodType, msg) => {
    if (p._errors.length === 0) return earlyExit(occurrence, prodType, msg);
    throw p.SAVE_ERROR(new EarlyExitException('', p.LA(1), p.LA(0)));
  };
}

/** Names of the rules a caller may start from. */
export type StartRule = 'statement' | 'query' | 'expr';

/**
 * The one parser instance: building it analyses the grammar, so it is done once per process.
 * Validations are skipped here for start-up time; test/unit/grammar runs them.
 */
export const pipeParser = new PipeSqlParser({ errorMessageProvider: recordingMessageProvider, validate: process.env['PIPEC_VALIDATE_GRAMMAR'] === '1' });
