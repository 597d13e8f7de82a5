/** CPU pinning with `taskset` where it exists and the machine has a second core. */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

let hasTaskset: boolean | null = null;

export function tasksetAvailable(): boolean {
  if (hasTaskset === null) {
    try {
      execFileSync('taskset', ['-V'], { stdio: 'ignore' });
      hasTaskset = availableParallelism() >= 2;
    } catch {
      hasTaskset = false;
    }
  }
  return hasTaskset;
}

/** `[command, args]` running `cmd args` on core `core` when pinning is possible, else unchanged. */
export function pinned(core: number | null, cmd: string, args: string[]): [string, string[]] {
  if (core === null || !tasksetAvailable()) return [cmd, args];
  return ['taskset', ['-c', String(core), cmd, ...args]];
}
