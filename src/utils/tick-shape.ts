/**
 * Keeps the hidden class of Node's `process.nextTick` entries alive for the
 * life of the process.
 *
 * Node 20 builds every queued tick as the object literal
 * `{ [async_id_symbol]: id, [trigger_async_id_symbol]: id, callback, args }`.
 * V8 remembers, per computed key of such a literal, the one hidden class
 * (map) it was seen on, and only weakly: a full garbage collection while no
 * tick is queued can free that chain of maps, the next tick builds a fresh
 * one, and on seeing a second map V8 gives up on the literal for good. From
 * then on every `nextTick` — half a dozen per HTTP request inside Node's
 * streams — defines three properties through the runtime: about 0.6 µs each,
 * 10 µs of CPU per request. Whether that collection comes during start-up is
 * luck (an app with a few more routes than another hit it every time).
 *
 * Holding one object of the same shape keeps the maps reachable, so the
 * literal stays on its fast path. Its ids are fractional so the id fields
 * are already generalised to doubles: a non-small-integer id later (Node
 * can hand out boxed numbers) does not retire the maps kept here for new
 * ones nobody holds. The symbols are Node's own, read off an
 * `AsyncResource`, which carries the same two; on a Node without them this
 * does nothing.
 */
import { AsyncResource } from 'node:async_hooks';

let kept: object | null = null;

function noop(): void {}

/** Idempotent; the object is returned only for tests. */
export function keepTickShape(): object | null {
  if (kept !== null) return kept;
  const symbols = Object.getOwnPropertySymbols(new AsyncResource('TrestleTickShape'));
  const asyncId = symbols.find((s) => s.description === 'async_id_symbol');
  const triggerId = symbols.find((s) => s.description === 'trigger_async_id_symbol');
  if (asyncId === undefined || triggerId === undefined) return null;
  // The same keys in the same order as Node's literal: the same maps.
  kept = { [asyncId]: 0.5, [triggerId]: 0.5, callback: noop, args: undefined };
  return kept;
}
