import test from 'node:test';

export const rate = 0.2;

test('imports', () => {});
