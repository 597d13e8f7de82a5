/**
 * Whether `value` is a promise or another thenable, which `await` would wait
 * on. The request pipeline awaits only these: each `await` of a plain value
 * is a turn of the microtask queue.
 */
export function isThenable<T>(value: T | Promise<T>): value is Promise<T>;
export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T>;
export function isThenable(value: unknown): boolean {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}
