// The query part of the `.pipe.sql` grammar: SELECT, FROM items (tables, window TVFs in short
// and long form, joins, subqueries) and UNION ALL. Pure Chevrotain rules.
import type { IParserConfig } from 'chevrotain';
import * as L from './lexer.ts';
import { ExprGrammar } from './parser-expr.ts';

const K = L.KW;

export class QueryGrammar extends ExprGrammar {
  constructor(config: IParserConfig) {
    super(config);
  }

  /** A gate: `t LIMIT` is t followed by an unsupported clause, `t AS limit` is an alias. */
  private readonly aliasFollows = (): boolean => {
    const t = this.LA(1).tokenType;
    return t === K.AS || !L.NOT_AN_ALIAS.has(t);
  };

  // ------------------------------------------------------------ queries

  query = this.RULE('query', () => {
    this.SUBRULE(this.selectQuery, { LABEL: 'selects' });
    this.MANY(() => {
      this.CONSUME(K.UNION);
      this.CONSUME(K.ALL);
      this.SUBRULE2(this.selectQuery, { LABEL: 'selects' });
    });
  });

  selectQuery = this.RULE('selectQuery', () => {
    this.CONSUME(K.SELECT);
    this.AT_LEAST_ONE_SEP({ SEP: L.Comma, DEF: () => this.SUBRULE(this.selectItem) });
    this.CONSUME(K.FROM);
    this.SUBRULE(this.fromClause);
    this.OPTION(() => {
      this.CONSUME(K.WHERE);
      this.SUBRULE(this.expr, { LABEL: 'where' });
    });
    this.OPTION2(() => {
      this.CONSUME(K.GROUP);
      this.CONSUME(K.BY);
      this.AT_LEAST_ONE_SEP2({ SEP: L.Comma, DEF: () => this.SUBRULE2(this.expr, { LABEL: 'groupBy' }) });
    });
    this.OPTION3(() => {
      this.CONSUME(K.HAVING);
      this.SUBRULE3(this.expr, { LABEL: 'having' });
    });
  });

  selectItem = this.RULE('selectItem', () => {
    // `t.*` and `t.c` differ only at the third token.
    this.OR({
      MAX_LOOKAHEAD: 3,
      DEF: [
        { ALT: () => this.CONSUME(L.Star) },
        {
          ALT: () => {
            this.CONSUME(L.IdentCat, { LABEL: 'qualifier' });
            this.CONSUME(L.Dot);
            this.CONSUME2(L.Star);
          },
        },
        {
          ALT: () => {
            this.SUBRULE(this.expr);
            this.OPTION({
              GATE: this.aliasFollows,
              DEF: () => {
                this.OPTION2(() => this.CONSUME(K.AS));
                this.CONSUME2(L.IdentCat, { LABEL: 'alias' });
              },
            });
          },
        },
      ],
    });
  });

  fromClause = this.RULE('fromClause', () => {
    this.SUBRULE(this.fromPrimary);
    this.MANY(() => this.SUBRULE(this.joinClause));
  });

  joinClause = this.RULE('joinClause', () => {
    this.OPTION(() => {
      this.OR([
        { ALT: () => this.CONSUME(K.INNER) },
        {
          ALT: () => {
            this.CONSUME(K.LEFT);
            this.OPTION2(() => this.CONSUME(K.OUTER));
          },
        },
      ]);
    });
    this.CONSUME(K.JOIN);
    this.SUBRULE(this.fromPrimary);
    this.CONSUME(K.ON);
    this.SUBRULE(this.expr);
  });

  fromPrimary = this.RULE('fromPrimary', () => {
    this.OR([
      { ALT: () => this.SUBRULE(this.windowCall) },
      { ALT: () => this.SUBRULE(this.longWindow) },
      { ALT: () => this.SUBRULE(this.subqueryRef) },
      { ALT: () => this.SUBRULE(this.tableRef) },
    ]);
    this.OPTION({
      GATE: this.aliasFollows,
      DEF: () => {
        this.OPTION2(() => this.CONSUME(K.AS));
        this.CONSUME(L.IdentCat, { LABEL: 'alias' });
      },
    });
  });

  tableRef = this.RULE('tableRef', () => {
    this.SUBRULE(this.qualifiedName);
    this.OPTION(() => {
      this.CONSUME(K.FOR);
      this.CONSUME(K.SYSTEM_TIME);
      this.CONSUME(K.AS);
      this.CONSUME(K.OF);
      this.SUBRULE(this.arith, { LABEL: 'asOf' });
    });
  });

  subqueryRef = this.RULE('subqueryRef', () => {
    this.CONSUME(L.LParen);
    this.SUBRULE(this.query);
    this.CONSUME(L.RParen);
  });

  /** Flink's `TABLE(TUMBLE(TABLE rel, DESCRIPTOR(col), size))`. */
  longWindow = this.RULE('longWindow', () => {
    this.CONSUME(K.TABLE);
    this.CONSUME(L.LParen);
    this.SUBRULE(this.windowCall);
    this.CONSUME(L.RParen);
  });

  /** `TUMBLE(rel, col, size)`; SESSION's `rel PARTITION BY a, b, col, gap` is split by the visitor, `rel PARTITION BY (a, b), col, gap` is not. */
  windowCall = this.RULE('windowCall', () => {
    this.OR([
      { ALT: () => this.CONSUME(K.TUMBLE, { LABEL: 'fn' }) },
      { ALT: () => this.CONSUME(K.HOP, { LABEL: 'fn' }) },
      { ALT: () => this.CONSUME(K.CUMULATE, { LABEL: 'fn' }) },
      { ALT: () => this.CONSUME(K.SESSION, { LABEL: 'fn' }) },
    ]);
    this.CONSUME(L.LParen);
    this.OPTION(() => this.CONSUME(K.TABLE));
    this.SUBRULE(this.qualifiedName, { LABEL: 'input' });
    this.OPTION2(() => {
      this.CONSUME(K.PARTITION);
      this.CONSUME(K.BY);
      // Flink's `PARTITION BY (a, b)`, or pipec's bare `PARTITION BY a, b` (split by the visitor).
      // A `(` right after BY always opens the list: ordered choice, so the ambiguity with a
      // parenthesized first argument is resolved toward the list.
      this.OR2([
        {
          GATE: () => this.LA(1).tokenType === L.LParen,
          IGNORE_AMBIGUITIES: true,
          ALT: () => {
            this.CONSUME2(L.LParen, { LABEL: 'partitionOpen' });
            this.AT_LEAST_ONE_SEP({ SEP: L.Comma, DEF: () => this.SUBRULE3(this.expr, { LABEL: 'partitionList' }) });
            this.CONSUME2(L.RParen);
          },
        },
        { ALT: () => this.SUBRULE(this.windowArg, { LABEL: 'partitionFirst' }) },
      ]);
    });
    this.MANY(() => {
      this.CONSUME(L.Comma);
      this.SUBRULE2(this.windowArg, { LABEL: 'args' });
    });
    this.CONSUME(L.RParen);
  });

  windowArg = this.RULE('windowArg', () => {
    this.OR([
      {
        ALT: () => {
          this.CONSUME(K.DESCRIPTOR);
          this.CONSUME(L.LParen);
          this.CONSUME(L.IdentCat, { LABEL: 'descriptor' });
          this.CONSUME(L.RParen);
        },
      },
      { ALT: () => this.SUBRULE(this.expr) },
    ]);
  });

}
