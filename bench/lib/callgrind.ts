/**
 * Instructions per function from a callgrind dump taken with
 * `--dump-instr=yes --dump-line=no`, the code V8 compiled named through
 * the `/tmp/perf-<pid>.map` that `node --perf-basic-prof` writes (callgrind
 * knows only native symbols; JavaScript shows there as bare addresses).
 * A function's own instructions, and who calls a function at what cost.
 */

interface CodeRange {
  start: number;
  end: number;
  name: string;
}

/**
 * The code ranges of a perf map (`<start hex> <size hex> <name>` per line),
 * sorted by start. V8 reuses the space of code it has freed, so an address
 * can be listed more than once: the line written last names the code there
 * now (a range it overlaps is cut back, or dropped; what only an older line
 * still covers past several newer ones is left unnamed, not misnamed).
 */
export function parsePerfMap(text: string): CodeRange[] {
  const written: CodeRange[] = [];
  for (const line of text.split('\n')) {
    const first = line.indexOf(' ');
    const second = line.indexOf(' ', first + 1);
    if (first <= 0 || second <= first) continue;
    const start = Number.parseInt(line.slice(0, first), 16);
    const size = Number.parseInt(line.slice(first + 1, second), 16);
    if (Number.isFinite(start) && Number.isFinite(size) && size > 0) written.push({ start, end: start + size, name: line.slice(second + 1) });
  }
  // By start, the line written later first; then one sweep cuts each overlap in favour of the later line.
  const order = written.map((r, i) => ({ ...r, line: i })).sort((a, b) => a.start - b.start || b.line - a.line);
  const kept: (CodeRange & { line: number })[] = [];
  for (const next of order) {
    const current = kept.at(-1);
    if (current !== undefined && next.start < current.end) {
      if (next.line < current.line) {
        // `next` is older: only what lies past the newer range is still its code.
        if (next.end <= current.end) continue;
        next.start = current.end;
      } else current.end = next.start;
      if (current.end <= current.start) kept.pop();
    }
    kept.push(next);
  }
  return kept.map(({ start, end, name }) => ({ start, end, name }));
}

function rangeAt(ranges: readonly CodeRange[], address: number): CodeRange | null {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = ranges[mid]!;
    if (address < r.start) hi = mid - 1;
    else if (address >= r.end) lo = mid + 1;
    else return r;
  }
  return null;
}

/** Self and call costs of a dump, each named as `selfCostByFunction` names functions. */
export interface DumpCosts {
  /** Each function's own instructions. */
  self: Map<string, number>;
  /** Per callee, the instructions of its calls (callee included) by calling function. */
  calls: Map<string, Map<string, number>>;
}

/**
 * A dump read once: what `selfCostByFunction` and `callersOf` answer, for several questions.
 * `event` picks the column of the dump's `events:` line counted (default the first, `Ir`;
 * with a cache or branch simulation e.g. `D1mr` or `Bcm`); a line that leaves it out counts 0.
 */
export function dumpCosts(dump: string, ranges: readonly CodeRange[], event?: string): DumpCosts {
  const column = event === undefined ? 0 : eventColumn(dump, event);
  const resolve = compressedNames();
  const resolveObject = compressedNames();
  const self = new Map<string, number>();
  const calls = new Map<string, Map<string, number>>();
  const named = (fn: string, object: string, address: number) =>
    fn.startsWith('0x') || object === '???' ? rangeAt(ranges, address)?.name ?? `??? ${fn}` : `${fn} [${object.slice(object.lastIndexOf('/') + 1)}]`;
  let fn = '';
  let object = '';
  let callee = '';
  let calleeObject = '';
  let address = 0;
  let callLine = false;
  for (const line of dump.split('\n')) {
    if (line.length === 0) continue;
    if (line.startsWith('fn=')) {
      fn = resolve(line.slice(3));
      calleeObject = object;
    } else if (line.startsWith('ob=')) calleeObject = object = resolveObject(line.slice(3));
    else if (line.startsWith('cfn=')) callee = resolve(line.slice(4));
    else if (line.startsWith('cob=')) calleeObject = resolveObject(line.slice(4));
    else if (line.startsWith('calls=')) callLine = true;
    else if (/^[0-9+*-]/.test(line)) {
      const space = line.indexOf(' ');
      const position = space === -1 ? line : line.slice(0, space);
      if (position.startsWith('0x')) address = Number.parseInt(position, 16);
      else if (position[0] === '+' || position[0] === '-') {
        const step = position.startsWith('0x', 1) ? Number.parseInt(position.slice(1), 16) : Number(position.slice(1));
        address += position[0] === '+' ? step : -step;
      } else if (position !== '*') address = Number(position);
      const cost = space === -1 ? 0 : Number(line.slice(space + 1).split(' ')[column] ?? 0);
      const key = named(fn, object, address);
      if (callLine) {
        // The line after `calls=` is the call's inclusive cost, not the caller's own. A callee
        // in compiled JavaScript is named by its entry address (callgrind's name for it).
        callLine = false;
        const target = named(callee, callee.startsWith('0x') ? '???' : calleeObject, Number.parseInt(callee, 16));
        let byCaller = calls.get(target);
        if (byCaller === undefined) calls.set(target, (byCaller = new Map()));
        byCaller.set(key, (byCaller.get(key) ?? 0) + cost);
        calleeObject = object;
        continue;
      }
      self.set(key, (self.get(key) ?? 0) + cost);
    }
  }
  return { self, calls };
}

/** The names of the dump's `events:` line, in their column order (`Ir`, and with a simulation `I1mr`, `Bcm`, …). */
export function eventNames(dump: string): string[] {
  return /^events:\s+(.+)$/m.exec(dump)?.[1]?.trim().split(/\s+/) ?? [];
}

/** The column of `event` in the dump's `events:` line; throws naming the events there are. */
export function eventColumn(dump: string, event: string): number {
  const events = eventNames(dump);
  const column = events.indexOf(event);
  if (column === -1) throw new Error(`the dump has no event ${event} (it has ${events.join(', ') || 'none'})`);
  return column;
}

/**
 * Self instructions by function: native functions by symbol and object
 * file, JavaScript by the perf map's name (`JS:*name file:line`, the `*`
 * marking optimized code), anything unnamed as `???`.
 */
export function selfCostByFunction(dump: string, ranges: readonly CodeRange[]): Map<string, number> {
  return dumpCosts(dump, ranges).self;
}

/**
 * Who calls the functions whose name contains one of `patterns`, and what those
 * calls cost them (the callee's instructions and what it calls in turn):
 * for a V8 builtin such as `KeyedStoreIC_Megamorphic`, the JavaScript whose
 * property accesses miss their inline caches.
 */
export function callersOf(costs: DumpCosts, patterns: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  const matches = (name: string) => patterns.some((p) => name.includes(p));
  for (const [callee, byCaller] of costs.calls) {
    if (!matches(callee)) continue;
    // A matching caller's calls are already inside its own caller's.
    for (const [caller, cost] of byCaller) if (!matches(caller)) out.set(caller, (out.get(caller) ?? 0) + cost);
  }
  return out;
}

/** A resolver of callgrind's name compression: `(12) name` names id 12, a later `(12)` refers to it. */
function compressedNames(): (token: string) => string {
  const names = new Map<string, string>();
  return (token) => {
    const m = /^\((\d+)\)(?: (.*))?$/.exec(token);
    if (m === null) return token;
    if (m[2] !== undefined) names.set(m[1]!, m[2]);
    return names.get(m[1]!) ?? token;
  };
}
