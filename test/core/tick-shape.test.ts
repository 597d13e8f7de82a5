import { createHook } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { keepTickShape } from '../../src/utils/tick-shape.js';

/** A real `process.nextTick` entry, seen through an init hook (enabled only for this). */
function captureTick(): object {
  let tick: object | null = null;
  const hook = createHook({
    init(_id, type, _trigger, resource) {
      if (type === 'TickObject' && tick === null) tick = resource as object;
    },
  });
  hook.enable();
  process.nextTick(() => {});
  hook.disable();
  if (tick === null) throw new Error('no TickObject seen');
  return tick;
}

describe('keepTickShape', () => {
  it("holds an object with the keys of Node's nextTick entries, in their order, with numeric ids", () => {
    const kept = keepTickShape();
    expect(kept).not.toBeNull();
    const tick = captureTick();
    // Same symbols (not look-alikes) and the same string keys in the same order.
    expect(Reflect.ownKeys(kept!)).toEqual(Reflect.ownKeys(tick));
    const symbols = Object.getOwnPropertySymbols(kept!);
    expect(symbols.map((s) => s.description)).toEqual(['async_id_symbol', 'trigger_async_id_symbol']);
    for (const s of symbols) expect(typeof (tick as Record<symbol, unknown>)[s]).toBe('number');
    expect(typeof (kept as { callback: unknown }).callback).toBe('function');
  });

  it('is built once per process', () => {
    expect(keepTickShape()).toBe(keepTickShape());
  });
});
