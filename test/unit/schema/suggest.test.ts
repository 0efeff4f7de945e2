// The "did you mean" helper shared by all phases: distances worked out by hand.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { editDistance, suggest } from '../../../src/util/suggest.ts';

test('edit distance counts insertions, deletions, substitutions and adjacent swaps as 1', () => {
  assert.equal(editDistance('amount', 'amount'), 0);
  assert.equal(editDistance('amount', 'amuont'), 1); // swap u/o
  assert.equal(editDistance('amount', 'ammount'), 1); // insert m
  assert.equal(editDistance('amount', 'amont'), 1); // delete u
  assert.equal(editDistance('amount', 'amoant'), 1); // substitute u→a
  assert.equal(editDistance('kitten', 'sitting'), 3);
  assert.equal(editDistance('', 'abc'), 3);
  assert.equal(editDistance('ca', 'abc'), 3); // optimal string alignment, not unrestricted Damerau (2)
});

test('suggest picks the closest candidate within a third of the length, case-insensitively', () => {
  assert.equal(suggest('custmer_id', ['order_id', 'customer_id', 'amount']), 'customer_id');
  assert.equal(suggest('ORDER_ID', ['order_id']), 'order_id');
  assert.equal(suggest('xyz', ['order_id', 'amount']), null);
  // 'ts' (length 2) allows 1 edit: 'tx' qualifies, 'abc' does not.
  assert.equal(suggest('ts', ['abc', 'tx']), 'tx');
  // ties go to the earlier candidate
  assert.equal(suggest('cat', ['bat', 'cut']), 'bat');
  assert.equal(suggest('anything', []), null);
});
