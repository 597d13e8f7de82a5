import { promiseHooks } from 'node:v8';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/**
 * `run()`'s result, and the first framework frame of each promise created
 * while it ran from code under src/ (the pipeline; not Fastify's or the
 * injector's own).
 */
export async function promisesOfFramework<T>(run: () => Promise<T>): Promise<{ result: T; created: string[] }> {
  const created: string[] = [];
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 40;
  const stop = promiseHooks.onInit(() => {
    const frame = new Error().stack!.split('\n').find((line) => line.includes(SRC));
    if (frame !== undefined) created.push(frame.trim());
  });
  try {
    return { result: await run(), created };
  } finally {
    stop();
    Error.stackTraceLimit = limit;
  }
}
