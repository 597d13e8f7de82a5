// The part of autocannon's API the load process and the instruction counter use (the package ships no types).
declare module 'autocannon' {
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string | undefined;
    connections?: number;
    duration?: number;
    /** Stop after this many requests instead of after `duration`. */
    amount?: number;
  }
  interface Histogram {
    p50: number;
    p99: number;
    average: number;
  }
  interface Result {
    start: Date;
    finish: Date;
    latency: Histogram;
    requests: Histogram & { total: number };
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
  }
  function autocannon(options: Options, done: (err: Error | null, result: Result) => void): unknown;
  export default autocannon;
}
