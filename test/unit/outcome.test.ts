// Order statuses and environment names in every spelling docs/dialects.md names.
import { describe, expect, it } from 'vitest';
import { environmentKind, orderOutcome, orderQuantity, pingFacts } from '../../src/api/outcome.js';

describe('orderOutcome', () => {
  it.each(['completed', 'complete', 'COMPLETE', 'Completed', ' COMPLETED '])('%j is success', (status) => {
    expect(orderOutcome(status)).toBe('completed');
  });

  it.each([
    'failed',
    'cancelled',
    'canceled',
    'rejected',
    'expired',
    'refunded',
    'error',
    'declined',
    'DECLINED',
    'Canceled',
    'FAILED',
  ])('%j is a terminal failure', (status) => {
    expect(orderOutcome(status)).toBe('failed');
  });

  it.each(['pending', 'PROCESSING', 'in_progress', 'queued', 'completing', ''])('%j is still in progress', (status) => {
    expect(orderOutcome(status)).toBe('in_progress');
  });
});

describe('environment names around spaces', () => {
  it(' live  and \ttest\n are read as their names', () => {
    expect(environmentKind(' live ')).toBe('live');
    expect(environmentKind('\tSandbox\n')).toBe('test');
    expect(environmentKind(undefined)).toBeUndefined();
  });
});

describe('environment names', () => {
  it.each(['test', 'sandbox', 'testing', 'TEST', 'Sandbox'])('%j is test', (name) => {
    expect(environmentKind(name)).toBe('test');
  });
  it.each(['live', 'production', 'prod', 'LIVE', 'Production'])('%j is live', (name) => {
    expect(environmentKind(name)).toBe('live');
  });
  it('another name is kept as sent and marked unknown (a warning, never a refusal)', () => {
    expect(pingFacts({ environment: 'staging', resellerId: 'r' })).toEqual({
      environment: 'staging',
      known: false,
      resellerId: 'r',
    });
    expect(pingFacts({ environment: 'SANDBOX', reseller_id: 'r' })).toEqual({
      environment: 'test',
      known: true,
      resellerId: 'r',
    });
    expect(pingFacts({})).toEqual({ environment: 'unknown', known: false, resellerId: 'unknown' });
  });
});

describe('orderQuantity', () => {
  it.each([
    [{ quantity: 12 }, 12],
    [{ quantity: '12' }, 12],
    [{ count: 3 }, undefined],
    [{ quantity: 0 }, undefined],
    [{ quantity: 1.5 }, undefined],
    [{ quantity: 'many' }, undefined],
    // How many codes must arrive: only whole digits count, around spaces; never a number another reading makes of
    // it (a scoped mutation run found these unasked).
    [{ quantity: ' 12 ' }, 12],
    [{ quantity: '1e3' }, undefined],
    [{ quantity: '12x' }, undefined],
    [{ quantity: 'x12' }, undefined],
    [{ quantity: true }, undefined],
    [{ quantity: '0' }, undefined],
    [{}, undefined],
  ])('%j → %s', (order, expected) => {
    expect(orderQuantity(order)).toBe(expected);
  });
});
