// The pure Chevrotain grammar of `.pipe.sql` (LANGUAGE.md): labelled sub-rules, no actions.
// Meaning (types, units, which call is EXTRACT or TRIM) is given by src/syntax/sql/ visitors.
import { CstParser, type IParserErrorMessageProvider } from 'chevrotain';
import * as L from './lexer.ts';
import { recordingMessageProvider } from './errors.ts';

const K = L.KW;

const TIME_UNIT_WORDS = new Set([
  'millisecond', 'milliseconds', 'second', 'seconds', 'minute', 'minutes', 'hour', 'hours',
  'day', 'days', 'week', 'weeks', 'month', 'months', 'quarter', 'quarters', 'year', 'years',
]);

export class PipeSqlParser extends CstParser {
  constructor(errorMessageProvider?: IParserErrorMessageProvider) {
    super(L.allTokens, {
      recoveryEnabled: true,
      nodeLocationTracking: 'onlyOffset',
      maxLookahead: 4,
      ...(errorMessageProvider ? { errorMessageProvider } : {}),
    });
    this.performSelfAnalysis();
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
    this.SUBRULE(this.ident, { LABEL: 'name' });
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
    this.SUBRULE(this.ident, { LABEL: 'name' });
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
      { ALT: () => this.SUBRULE(this.primaryKeyDef) },
      { ALT: () => this.SUBRULE(this.columnDef) },
    ]);
  });

  watermarkDef = this.RULE('watermarkDef', () => {
    this.CONSUME(K.WATERMARK);
    this.CONSUME(K.FOR);
    this.SUBRULE(this.ident, { LABEL: 'column' });
    this.CONSUME(K.AS);
    this.SUBRULE(this.expr);
  });

  primaryKeyDef = this.RULE('primaryKeyDef', () => {
    this.CONSUME(K.PRIMARY);
    this.CONSUME(K.KEY);
    this.CONSUME(L.LParen);
    this.AT_LEAST_ONE_SEP({ SEP: L.Comma, DEF: () => this.SUBRULE(this.ident, { LABEL: 'columns' }) });
    this.CONSUME(L.RParen);
    this.OPTION(() => {
      this.CONSUME(K.NOT);
      this.CONSUME(K.ENFORCED);
    });
  });

  columnDef = this.RULE('columnDef', () => {
    this.SUBRULE(this.ident, { LABEL: 'name' });
    this.SUBRULE(this.dataType);
    this.OPTION(() => {
      this.CONSUME(K.METADATA);
      this.CONSUME(K.FROM);
      this.CONSUME(L.StringLit, { LABEL: 'metadataKey' });
    });
  });

  /** `NAME [(n [, m])] [<args>] [NOT NULL]`; which names exist is the visitor's business. */
  dataType = this.RULE('dataType', () => {
    this.SUBRULE(this.ident, { LABEL: 'typeName' });
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
    this.SUBRULE(this.ident, { LABEL: 'name' });
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
          this.SUBRULE(this.ident, { LABEL: 'target' });
        },
      },
    ]);
  });

  sinkBody = this.RULE('sinkBody', () => {
    this.CONSUME(K.SINK);
    this.SUBRULE(this.ident, { LABEL: 'name' });
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
    this.SUBRULE(this.ident, { LABEL: 'name' });
    this.SUBRULE(this.withOptions);
  });

  compactionBody = this.RULE('compactionBody', () => {
    this.CONSUME(K.COMPACTION);
    this.CONSUME(K.POLICY);
    this.SUBRULE(this.ident, { LABEL: 'name' });
    this.CONSUME(K.ON);
    this.SUBRULE2(this.ident, { LABEL: 'target' });
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
      this.SUBRULE(this.ident, { LABEL: 'field' });
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
    this.SUBRULE(this.ident, { LABEL: 'field' });
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
    this.OR([
      { ALT: () => this.CONSUME(L.Star) },
      {
        ALT: () => {
          this.SUBRULE(this.ident, { LABEL: 'qualifier' });
          this.CONSUME(L.Dot);
          this.CONSUME2(L.Star);
        },
      },
      {
        ALT: () => {
          this.SUBRULE(this.expr);
          this.OPTION(() => this.SUBRULE(this.alias));
        },
      },
    ]);
  });

  alias = this.RULE('alias', () => {
    this.OPTION(() => this.CONSUME(K.AS));
    this.SUBRULE(this.ident);
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
    this.OPTION(() => this.SUBRULE(this.alias));
  });

  tableRef = this.RULE('tableRef', () => {
    this.SUBRULE(this.qualifiedName);
    this.OPTION(() => {
      this.CONSUME(K.FOR);
      this.CONSUME(K.SYSTEM_TIME);
      this.CONSUME(K.AS);
      this.CONSUME(K.OF);
      this.SUBRULE(this.additive, { LABEL: 'asOf' });
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

  /** `TUMBLE(rel, col, size)`; SESSION's `rel PARTITION BY a, b, col, gap` is split by the visitor. */
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
      this.SUBRULE(this.windowArg, { LABEL: 'partitionFirst' });
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
          this.SUBRULE(this.ident, { LABEL: 'descriptor' });
          this.CONSUME(L.RParen);
        },
      },
      { ALT: () => this.SUBRULE(this.expr) },
    ]);
  });

  // ------------------------------------------------------------ expressions (lowest precedence first)

  expr = this.RULE('expr', () => {
    this.AT_LEAST_ONE_SEP({ SEP: K.OR, DEF: () => this.SUBRULE(this.andExpr, { LABEL: 'operands' }) });
  });

  andExpr = this.RULE('andExpr', () => {
    this.AT_LEAST_ONE_SEP({ SEP: K.AND, DEF: () => this.SUBRULE(this.notExpr, { LABEL: 'operands' }) });
  });

  notExpr = this.RULE('notExpr', () => {
    this.MANY(() => this.CONSUME(K.NOT, { LABEL: 'nots' }));
    this.SUBRULE(this.predicate);
  });

  predicate = this.RULE('predicate', () => {
    this.SUBRULE(this.additive, { LABEL: 'operand' });
    this.OPTION(() => {
      this.OR([
        {
          ALT: () => {
            this.OR2([
              { ALT: () => this.CONSUME(L.Eq, { LABEL: 'compOp' }) },
              { ALT: () => this.CONSUME(L.DoubleEq, { LABEL: 'compOp' }) },
              { ALT: () => this.CONSUME(L.NotEq, { LABEL: 'compOp' }) },
              { ALT: () => this.CONSUME(L.LtEq, { LABEL: 'compOp' }) },
              { ALT: () => this.CONSUME(L.GtEq, { LABEL: 'compOp' }) },
              { ALT: () => this.CONSUME(L.Lt, { LABEL: 'compOp' }) },
              { ALT: () => this.CONSUME(L.Gt, { LABEL: 'compOp' }) },
            ]);
            this.SUBRULE2(this.additive, { LABEL: 'right' });
          },
        },
        {
          ALT: () => {
            this.CONSUME(K.IS);
            this.OPTION2(() => this.CONSUME(K.NOT, { LABEL: 'isNot' }));
            this.CONSUME(K.NULL);
          },
        },
        {
          ALT: () => {
            this.OPTION3(() => this.CONSUME2(K.NOT, { LABEL: 'negated' }));
            this.OR3([
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
                  this.SUBRULE3(this.additive, { LABEL: 'low' });
                  this.CONSUME(K.AND);
                  this.SUBRULE4(this.additive, { LABEL: 'high' });
                },
              },
              {
                ALT: () => {
                  this.CONSUME(K.LIKE);
                  this.SUBRULE5(this.additive, { LABEL: 'pattern' });
                },
              },
            ]);
          },
        },
      ]);
    });
  });

  additive = this.RULE('additive', () => {
    this.SUBRULE(this.multiplicative, { LABEL: 'operands' });
    this.MANY(() => {
      this.OR([
        { ALT: () => this.CONSUME(L.Plus, { LABEL: 'ops' }) },
        { ALT: () => this.CONSUME(L.Minus, { LABEL: 'ops' }) },
        { ALT: () => this.CONSUME(L.Concat, { LABEL: 'ops' }) },
      ]);
      this.SUBRULE2(this.multiplicative, { LABEL: 'operands' });
    });
  });

  multiplicative = this.RULE('multiplicative', () => {
    this.SUBRULE(this.unary, { LABEL: 'operands' });
    this.MANY(() => {
      this.OR([
        { ALT: () => this.CONSUME(L.Star, { LABEL: 'ops' }) },
        { ALT: () => this.CONSUME(L.Slash, { LABEL: 'ops' }) },
        { ALT: () => this.CONSUME(L.Percent, { LABEL: 'ops' }) },
      ]);
      this.SUBRULE2(this.unary, { LABEL: 'operands' });
    });
  });

  unary = this.RULE('unary', () => {
    this.OR([
      {
        ALT: () => {
          this.CONSUME(L.Minus);
          this.SUBRULE(this.unary);
        },
      },
      {
        ALT: () => {
          this.CONSUME(L.Plus);
          this.SUBRULE2(this.unary);
        },
      },
      { ALT: () => this.SUBRULE(this.primary) },
    ]);
  });

  primary = this.RULE('primary', () => {
    this.OR([
      { ALT: () => this.CONSUME(L.NumberLit) },
      { ALT: () => this.CONSUME(L.StringLit) },
      { ALT: () => this.CONSUME(K.TRUE) },
      { ALT: () => this.CONSUME(K.FALSE) },
      { ALT: () => this.CONSUME(K.NULL) },
      { ALT: () => this.SUBRULE(this.intervalLit) },
      { ALT: () => this.SUBRULE(this.typedLiteral) },
      { ALT: () => this.SUBRULE(this.caseExpr) },
      { ALT: () => this.SUBRULE(this.castExpr) },
      { ALT: () => this.SUBRULE(this.extractExpr) },
      { ALT: () => this.SUBRULE(this.parenExpr) },
      { ALT: () => this.SUBRULE(this.functionCall) },
      { ALT: () => this.SUBRULE(this.columnRef) },
    ]);
  });

  intervalLit = this.RULE('intervalLit', () => {
    this.CONSUME(K.INTERVAL);
    this.CONSUME(L.StringLit);
    // A gate, not an action: only a time-unit word may follow, so `INTERVAL '5 s' x` keeps x an alias.
    this.OPTION({
      GATE: () => TIME_UNIT_WORDS.has(this.LA(1).image.toLowerCase()),
      DEF: () => this.SUBRULE(this.ident, { LABEL: 'unit' }),
    });
  });

  typedLiteral = this.RULE('typedLiteral', () => {
    this.OR([
      { ALT: () => this.CONSUME(K.TIMESTAMP, { LABEL: 'typeWord' }) },
      { ALT: () => this.CONSUME(K.DATE, { LABEL: 'typeWord' }) },
    ]);
    this.CONSUME(L.StringLit);
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
    this.SUBRULE(this.ident, { LABEL: 'unit' });
    this.CONSUME(K.FROM);
    this.SUBRULE(this.expr);
    this.CONSUME(L.RParen);
  });

  parenExpr = this.RULE('parenExpr', () => {
    this.CONSUME(L.LParen);
    this.SUBRULE(this.expr);
    this.CONSUME(L.RParen);
  });

  /**
   * Any `name(...)`. The special argument shapes of FLOOR/CEIL (`x TO unit`), SUBSTRING
   * (`s FROM a FOR b`) and TRIM (`BOTH c FROM s`) are accepted for every name; the visitor
   * says which names may use them.
   */
  functionCall = this.RULE('functionCall', () => {
    this.SUBRULE(this.ident, { LABEL: 'name' });
    this.CONSUME(L.LParen);
    this.OPTION(() => {
      this.OR([
        { ALT: () => this.CONSUME(K.DISTINCT, { LABEL: 'modifier' }) },
        { ALT: () => this.CONSUME(K.BOTH, { LABEL: 'modifier' }) },
        { ALT: () => this.CONSUME(K.LEADING, { LABEL: 'modifier' }) },
        { ALT: () => this.CONSUME(K.TRAILING, { LABEL: 'modifier' }) },
      ]);
    });
    this.OPTION2(() => {
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
            this.OPTION3(() => {
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
                    this.SUBRULE2(this.ident, { LABEL: 'toUnit' });
                  },
                },
                {
                  ALT: () => {
                    this.CONSUME2(K.FROM, { LABEL: 'fromKw' });
                    this.SUBRULE4(this.expr, { LABEL: 'fromArg' });
                    this.OPTION4(() => {
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
    this.CONSUME(L.RParen);
  });

  columnRef = this.RULE('columnRef', () => {
    this.SUBRULE(this.ident, { LABEL: 'parts' });
    this.OPTION(() => {
      this.CONSUME(L.Dot);
      this.SUBRULE2(this.ident, { LABEL: 'parts' });
    });
  });

  qualifiedName = this.RULE('qualifiedName', () => {
    this.AT_LEAST_ONE_SEP({ SEP: L.Dot, DEF: () => this.SUBRULE(this.ident, { LABEL: 'parts' }) });
  });

  ident = this.RULE('ident', () => {
    this.CONSUME(L.IdentCat);
  });
}

/** Names of the rules a caller may start from. */
export type StartRule = 'statement' | 'query' | 'expr';

/** The one parser instance: building it analyses the grammar (~200 ms), so it is done once. */
export const pipeParser = new PipeSqlParser(recordingMessageProvider);
