/**
 * bench/lib/callgrind.ts: a callgrind dump's own instructions by function,
 * JavaScript named through node's perf map — on a dump written the way
 * `--dump-instr=yes --dump-line=no` writes one (names compressed to ids,
 * addresses relative to the line before, a call's cost on the line after
 * `calls=`).
 */
import { describe, expect, it } from 'vitest';
import { callersOf, dumpCosts, eventColumn, parsePerfMap, selfCostByFunction } from '../../bench/lib/callgrind.js';

const PERF_MAP = ['1000 40 JS:*handle file:///x/build/example.mjs:10:1', '2000 10 JS:^render file:///x/build/example.mjs:20:1', 'junk line'].join('\n');

const DUMP = [
  'version: 1',
  'positions: instr',
  'events: Ir',
  'ob=(1) /usr/bin/node',
  'fn=(1) Builtins_LoadIC',
  '0x500 7',
  '+2 3',
  'ob=(2) ???',
  'fn=(2) 0x0000000000001000',
  '0x1000 10',
  '+4 5',
  'cob=(1)',
  'cfn=(1)',
  'calls=1 0x500',
  '+4 999',
  '+4 2',
  'fn=(3) 0x0000000000002000',
  '0x2008 6',
  'fn=(4) 0x0000000000009000',
  '0x9000 4',
  'ob=(1)',
  'fn=(1)',
  '* 1',
  'totals: 38',
].join('\n');

describe('instructions by function from a callgrind dump', () => {
  it('adds each function its own instructions, naming compiled code from the perf map, calls left out', () => {
    const ranges = parsePerfMap(PERF_MAP);
    expect(ranges.map((r) => [r.start, r.end])).toEqual([
      [0x1000, 0x1040],
      [0x2000, 0x2010],
    ]);
    const costs = selfCostByFunction(DUMP, ranges);
    expect(Object.fromEntries(costs)).toEqual({
      'Builtins_LoadIC [node]': 11,
      'JS:*handle file:///x/build/example.mjs:10:1': 17,
      'JS:^render file:///x/build/example.mjs:20:1': 6,
      '??? 0x0000000000009000': 4,
    });
  });

  it('names reused code space by the line written last', () => {
    const lines = ['0f00 200 JS:*oldest z.js:1:1', '1000 40 JS:*old a.js:1:1', '1000 20 JS:*new b.js:1:1', '1020 10 JS:*newer c.js:1:1'];
    const ranges = parsePerfMap(lines.join('\n'));
    // Where lines overlap, the later one names the code; what only an older line still covers past
    // several newer ones is left unnamed rather than misnamed.
    expect(ranges.map((r) => [r.start.toString(16), r.end.toString(16), r.name])).toEqual([
      ['f00', '1000', 'JS:*oldest z.js:1:1'],
      ['1000', '1020', 'JS:*new b.js:1:1'],
      ['1020', '1030', 'JS:*newer c.js:1:1'],
    ]);
    expect(parsePerfMap([lines[1], lines[0]].join('\n')).map((r) => r.name)).toEqual(['JS:*oldest z.js:1:1']);
  });

  it('names who calls a function and what the calls cost, callee included', () => {
    const ranges = parsePerfMap(PERF_MAP);
    expect(Object.fromEntries(callersOf(dumpCosts(DUMP, ranges), ['LoadIC']))).toEqual({ 'JS:*handle file:///x/build/example.mjs:10:1': 999 });
    expect(Object.fromEntries(callersOf(dumpCosts(DUMP, ranges), ['render', 'LoadIC']))).toEqual({ 'JS:*handle file:///x/build/example.mjs:10:1': 999 });
    expect(callersOf(dumpCosts(DUMP, ranges), ['StoreIC']).size).toBe(0);
    // Its own instructions are unchanged by the call's cost.
    expect(selfCostByFunction(DUMP, ranges).get('JS:*handle file:///x/build/example.mjs:10:1')).toBe(17);
  });
});

describe('another event of a simulated dump', () => {
  const SIMULATED = [
    'version: 1',
    'positions: instr',
    'events: Ir Bc Bcm',
    'ob=(1) /usr/bin/node',
    'fn=(1) Builtins_LoadIC',
    '0x500 7 2 1',
    '+2 3',
    'ob=(2) ???',
    'fn=(2) 0x0000000000001000',
    '0x1000 10 4 3',
    'totals: 20 6 4',
  ].join('\n');

  it('counts the chosen column, a line that leaves it out as 0', () => {
    const ranges = parsePerfMap(PERF_MAP);
    expect(Object.fromEntries(dumpCosts(SIMULATED, ranges, 'Bcm').self)).toEqual({ 'Builtins_LoadIC [node]': 1, 'JS:*handle file:///x/build/example.mjs:10:1': 3 });
    expect(Object.fromEntries(dumpCosts(SIMULATED, ranges).self)).toEqual({ 'Builtins_LoadIC [node]': 10, 'JS:*handle file:///x/build/example.mjs:10:1': 10 });
    expect(eventColumn(SIMULATED, 'Bc')).toBe(1);
    expect(() => eventColumn(SIMULATED, 'D1mr')).toThrow('the dump has no event D1mr (it has Ir, Bc, Bcm)');
  });
});
