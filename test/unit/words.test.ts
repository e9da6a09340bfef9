import { describe, expect, it } from 'vitest';
import { counted } from '../../src/output/words.js';

describe('counted', () => {
  it('says one code, and codes for any other count, grouped by thousands', () => {
    expect(counted(1, 'code')).toBe('1 code');
    expect(counted(0, 'code')).toBe('0 codes');
    expect(counted(3, 'code')).toBe('3 codes');
    expect(counted(1_000_000, 'code')).toBe('1,000,000 codes');
    expect(counted(2, 'entry', 'entries')).toBe('2 entries');
  });
});
