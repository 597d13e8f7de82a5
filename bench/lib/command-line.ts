import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/** The parsed values of `options`, typed from their declarations. */
export type Values<O extends Options> = ReturnType<typeof parseArgs<{ options: O }>>['values'];

/**
 * A bench script's command line: `--help` prints `help` (exit 0), and a
 * wrong option — here, or found later with `refuse` — is answered with the
 * reason and the usage on stderr (exit 2), before anything is built or started.
 */
export function commandLine<const O extends Options>(help: string, options: O): { values: Values<O>; refuse: (message: string) => never } {
  const refuse = (message: string): never => {
    process.stderr.write(`${message}\n\n${help}`);
    process.exit(2);
  };
  let values: Values<O>;
  try {
    ({ values } = parseArgs({ options }));
  } catch (err) {
    return refuse(err instanceof Error ? err.message : String(err));
  }
  if ((values as { help?: boolean }).help) {
    process.stdout.write(help);
    process.exit(0);
  }
  return { values, refuse };
}
