// The expression part of the `.pipe.sql` grammar (with types and qualified names): pure
// Chevrotain rules. Query and statement rules extend this class in parser-query.ts and parser.ts.
import { CstParser, type IParserConfig } from 'chevrotain';
import * as L from './lexer.ts';

const K = L.KW;

const TIME_UNIT_WORDS = new Set([
  'millisecond', 'milliseconds', 'second', 'seconds', 'minute', 'minutes', 'hour', 'hours',
  'day', 'days', 'week', 'weeks', 'month', 'months', 'quarter', 'quarters', 'year', 'years',
]);

export class ExprGrammar extends CstParser {
  constructor(config: IParserConfig) {
    super(L.allTokens, config);
  }

  // ------------------------------------------------------------ expressions

  /**
   * A flat chain `unit (operator unit)*`. Precedence (OR < AND < NOT < comparisons and
   * predicates < + - || < * / % < unary minus) is applied by the visitor: a layered grammar
   * would cost ten rule calls per column reference.
   */
  expr = this.RULE('expr', () => {
    this.SUBRULE(this.exprUnit, { LABEL: 'units' });
    this.MANY(() => {
      this.CONSUME(L.BinOp, { LABEL: 'ops' });
      this.SUBRULE2(this.exprUnit, { LABEL: 'units' });
    });
  });

  /** `NOT`/`-` prefixes, an atom, then `IS NULL` / `IN` / `BETWEEN` / `LIKE` suffixes. */
  exprUnit = this.RULE('exprUnit', () => {
    this.MANY(() => this.CONSUME(L.PrefixOp, { LABEL: 'prefixes' }));
    this.SUBRULE(this.atom);
    this.MANY2(() => this.SUBRULE(this.predicateSuffix, { LABEL: 'suffixes' }));
  });

  predicateSuffix = this.RULE('predicateSuffix', () => {
    this.OR([
      {
        ALT: () => {
          this.CONSUME(K.IS);
          this.OPTION(() => this.CONSUME(K.NOT, { LABEL: 'negated' }));
          this.CONSUME(K.NULL);
        },
      },
      {
        ALT: () => {
          this.OPTION2(() => this.CONSUME2(K.NOT, { LABEL: 'negated' }));
          this.OR2([
            {
              ALT: () => {
                this.CONSUME(K.IN);
                this.CONSUME(L.LParen);
                this.AT_LEAST_ONE_SEP({ SEP: L.Comma, DEF: () => this.SUBRULE(this.expr, { LABEL: 'inList' }) });
                this.CONSUME(L.RParen);
              },
            },
            {
              ALT: () => {
                this.CONSUME(K.BETWEEN);
                this.SUBRULE(this.arith, { LABEL: 'low' });
                this.CONSUME(K.AND);
                this.SUBRULE2(this.arith, { LABEL: 'high' });
              },
            },
            {
              ALT: () => {
                this.CONSUME(K.LIKE);
                this.SUBRULE3(this.arith, { LABEL: 'pattern' });
              },
            },
          ]);
        },
      },
    ]);
  });

  /** Arithmetic only (BETWEEN bounds, LIKE patterns, AS OF): its AND belongs to BETWEEN. */
  arith = this.RULE('arith', () => {
    this.SUBRULE(this.arithUnit, { LABEL: 'units' });
    this.MANY(() => {
      this.CONSUME(L.ArithOp, { LABEL: 'ops' });
      this.SUBRULE2(this.arithUnit, { LABEL: 'units' });
    });
  });

  arithUnit = this.RULE('arithUnit', () => {
    this.MANY(() => this.CONSUME(L.SignOp, { LABEL: 'prefixes' }));
    this.SUBRULE(this.atom);
  });

  atom = this.RULE('atom', () => {
    this.OR([
      { ALT: () => this.CONSUME(L.NumberLit) },
      { ALT: () => this.CONSUME(L.StringLit) },
      { ALT: () => this.CONSUME(K.TRUE) },
      { ALT: () => this.CONSUME(K.FALSE) },
      { ALT: () => this.CONSUME(K.NULL) },
      { ALT: () => this.SUBRULE(this.intervalLit) },
      {
        ALT: () => {
          this.OR2([
            { ALT: () => this.CONSUME(K.TIMESTAMP, { LABEL: 'typeWord' }) },
            { ALT: () => this.CONSUME(K.DATE, { LABEL: 'typeWord' }) },
          ]);
          this.CONSUME2(L.StringLit, { LABEL: 'typedValue' });
        },
      },
      { ALT: () => this.SUBRULE(this.caseExpr) },
      { ALT: () => this.SUBRULE(this.castExpr) },
      { ALT: () => this.SUBRULE(this.extractExpr) },
      {
        ALT: () => {
          this.CONSUME(L.LParen);
          this.SUBRULE(this.expr, { LABEL: 'paren' });
          this.CONSUME(L.RParen);
        },
      },
      {
        // A column `c` or `t.c`, or a call `f(...)`.
        ALT: () => {
          this.CONSUME(L.IdentCat, { LABEL: 'names' });
          this.OPTION(() => {
            this.CONSUME(L.Dot);
            this.CONSUME2(L.IdentCat, { LABEL: 'names' });
          });
          this.OPTION2(() => {
            this.CONSUME2(L.LParen, { LABEL: 'callOpen' });
            this.OPTION3(() => this.SUBRULE(this.callArgs));
            this.CONSUME2(L.RParen, { LABEL: 'callClose' });
          });
        },
      },
    ]);
  });

  intervalLit = this.RULE('intervalLit', () => {
    this.CONSUME(K.INTERVAL);
    this.CONSUME(L.StringLit);
    // A gate, not an action: only a time-unit word may follow, so `INTERVAL '5 s' x` keeps x an alias.
    this.OPTION({
      GATE: () => TIME_UNIT_WORDS.has(this.LA(1).image.toLowerCase()),
      DEF: () => this.CONSUME(L.IdentCat, { LABEL: 'unit' }),
    });
  });

  caseExpr = this.RULE('caseExpr', () => {
    this.CONSUME(K.CASE);
    this.OPTION(() => this.SUBRULE(this.expr, { LABEL: 'operand' }));
    this.AT_LEAST_ONE(() => {
      this.CONSUME(K.WHEN);
      this.SUBRULE2(this.expr, { LABEL: 'whens' });
      this.CONSUME(K.THEN);
      this.SUBRULE3(this.expr, { LABEL: 'thens' });
    });
    this.OPTION2(() => {
      this.CONSUME(K.ELSE);
      this.SUBRULE4(this.expr, { LABEL: 'else' });
    });
    this.CONSUME(K.END);
  });

  castExpr = this.RULE('castExpr', () => {
    this.CONSUME(K.CAST);
    this.CONSUME(L.LParen);
    this.SUBRULE(this.expr);
    this.CONSUME(K.AS);
    this.SUBRULE(this.dataType);
    this.CONSUME(L.RParen);
  });

  extractExpr = this.RULE('extractExpr', () => {
    this.CONSUME(K.EXTRACT);
    this.CONSUME(L.LParen);
    this.CONSUME(L.IdentCat, { LABEL: 'unit' });
    this.CONSUME(K.FROM);
    this.SUBRULE(this.expr);
    this.CONSUME(L.RParen);
  });

  /**
   * The inside of `name(...)`. The special argument shapes of FLOOR/CEIL (`x TO unit`),
   * SUBSTRING (`s FROM a FOR b`) and TRIM (`BOTH c FROM s`) are accepted for every name; the
   * visitor says which names may use them.
   */
  callArgs = this.RULE('callArgs', () => {
    this.OPTION(() => {
      this.OR([
        { ALT: () => this.CONSUME(K.DISTINCT, { LABEL: 'modifier' }) },
        { ALT: () => this.CONSUME(K.BOTH, { LABEL: 'modifier' }) },
        { ALT: () => this.CONSUME(K.LEADING, { LABEL: 'modifier' }) },
        { ALT: () => this.CONSUME(K.TRAILING, { LABEL: 'modifier' }) },
      ]);
    });
    this.OR2([
      { ALT: () => this.CONSUME(L.Star) },
      {
        ALT: () => {
          this.CONSUME(K.FROM, { LABEL: 'fromKw' });
          this.SUBRULE(this.expr, { LABEL: 'fromArg' });
        },
      },
      {
        ALT: () => {
          this.SUBRULE2(this.expr, { LABEL: 'args' });
          this.OPTION2(() => {
            this.OR3([
              {
                ALT: () => {
                  this.AT_LEAST_ONE(() => {
                    this.CONSUME(L.Comma);
                    this.SUBRULE3(this.expr, { LABEL: 'args' });
                  });
                },
              },
              {
                ALT: () => {
                  this.CONSUME(K.TO);
                  this.CONSUME(L.IdentCat, { LABEL: 'toUnit' });
                },
              },
              {
                ALT: () => {
                  this.CONSUME2(K.FROM, { LABEL: 'fromKw' });
                  this.SUBRULE4(this.expr, { LABEL: 'fromArg' });
                  this.OPTION3(() => {
                    this.CONSUME(K.FOR);
                    this.SUBRULE5(this.expr, { LABEL: 'forArg' });
                  });
                },
              },
            ]);
          });
        },
      },
    ]);
  });

  /** `NAME [(n [, m])] [<args>] [NOT NULL]`; which names exist is the visitor's business. */
  dataType = this.RULE('dataType', () => {
    this.CONSUME(L.IdentCat, { LABEL: 'typeName' });
    this.OPTION(() => {
      this.CONSUME(L.LParen);
      this.AT_LEAST_ONE_SEP({ SEP: L.Comma, DEF: () => this.CONSUME(L.NumberLit, { LABEL: 'params' }) });
      this.CONSUME(L.RParen);
    });
    this.OPTION2(() => {
      this.CONSUME(L.Lt);
      this.AT_LEAST_ONE_SEP2({ SEP: L.Comma, DEF: () => this.SUBRULE(this.typeArg) });
      this.CONSUME(L.Gt);
    });
    this.OPTION3(() => {
      this.CONSUME2(K.NOT);
      this.CONSUME(K.NULL);
    });
  });

  /** `T` inside ARRAY/MAP, or `name T` inside ROW. */
  typeArg = this.RULE('typeArg', () => {
    this.SUBRULE(this.dataType, { LABEL: 'first' });
    this.OPTION(() => this.SUBRULE2(this.dataType, { LABEL: 'second' }));
  });

  qualifiedName = this.RULE('qualifiedName', () => {
    this.AT_LEAST_ONE_SEP({ SEP: L.Dot, DEF: () => this.CONSUME(L.IdentCat, { LABEL: 'parts' }) });
  });
}
