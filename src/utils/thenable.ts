/**
 * Whether `value` is a promise or another thenable, which `await` would wait
 * on. The request pipeline awaits only these: each `await` of a plain value
 * is a turn of the microtask queue.
 */
export function isThenable<T>(value: T | Promise<T>): value is Promise<T>;
export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T>;
export function isThenable(value: unknown): boolean {
  // Strings, numbers and the like are never read for a `then` (V8 would look it up on their prototypes), nor
  // are promises: this one check runs for every kind of value, so its property read is a megamorphic lookup.
  if (typeof value !== 'object' || value === null) return typeof value === 'function' && typeof (value as { then?: unknown }).then === 'function';
  return value instanceof Promise || typeof (value as { then?: unknown }).then === 'function';
}

/**
 * `run()` as a promise, a synchronous throw as a rejection: the promise form
 * of a method whose `…Now` twin may answer at once (`Serializer.validate`
 * of `validateNow`, `TokenStore.lookup` of `lookupNow`).
 */
export function promiseOf<T>(run: () => T | PromiseLike<T>): Promise<T> {
  try {
    return Promise.resolve(run());
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * `next(value)` at once when `value` is not a promise, else once it settles:
 * a step of a pipeline that waits only where something waits.
 */
export function thenOf<A, B>(value: A | Promise<A>, next: (a: A) => B | Promise<B>): B | Promise<B> {
  return isThenable(value) ? value.then(next) : next(value);
}
