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
