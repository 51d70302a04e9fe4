/**
 * The argument handling every `order-desk` command shares, so they all behave alike: `--help` (or `-h`) prints
 * the command's usage and exits 0, `--version` prints the version, an unknown flag exits 2 naming every unknown
 * one, and a flag without its value (or a positional where none is taken) exits 2 saying which.
 *
 * A command declares its flags as node:util `parseArgs` options in a `CommandSpec` and starts with
 * `const args = parseCommandArgs(SPEC, argv, io); if (!args.ok) return args.exitCode;`.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { VERSION } from "../version.ts";

/** node:util's option declarations (the name its newer types export). */
export type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig["options"]>;

export interface CommandIo {
  stdout: { write(chunk: string): unknown };
  stderr: { write(chunk: string): unknown };
}

export interface CommandSpec<O extends ParseArgsOptionsConfig> {
  /** As typed after `order-desk`: "doctor", "jobs". */
  name: string;
  usage: string;
  /** The command's own flags; `--help`/`-h` and `--version` are added. */
  options: O;
  /** Whether it takes positional arguments (actions, ids, files); default not. */
  positionals?: boolean;
  /** Reports a usage problem its own way (`place` prints one JSON line); default a line on stderr. */
  usageError?: (message: string, io: CommandIo) => void;
}

/** Exit code of a usage problem, the same for every command. */
export const EXIT_USAGE = 2;

const BUILT_IN = {
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
} as const satisfies ParseArgsOptionsConfig;

type Values<O extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{ options: O; strict: true; allowPositionals: true }>
>["values"];

export type CommandArgs<O extends ParseArgsOptionsConfig> =
  | { ok: true; values: Values<O>; positionals: string[] }
  | { ok: false; exitCode: number };

export function versionLine(): string {
  return `order-desk ${VERSION} (Node.js ${process.version})\n`;
}

export function parseCommandArgs<O extends ParseArgsOptionsConfig>(
  spec: CommandSpec<O>,
  argv: readonly string[],
  io: CommandIo,
): CommandArgs<O> {
  const options = { ...spec.options, ...BUILT_IN };
  const usageError = (message: string): CommandArgs<O> => {
    if (spec.usageError) spec.usageError(message, io);
    else
      io.stderr.write(
        `order-desk ${spec.name}: ${message}\nRun 'order-desk ${spec.name} --help' for its options.\n`,
      );
    return { ok: false, exitCode: EXIT_USAGE };
  };

  // A lenient pass first: it sees every flag, so --help works beside a mistake and all unknown flags are named.
  const { tokens } = parseArgs({
    args: [...argv],
    options,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const flags = tokens.filter((t) => t.kind === "option");
  if (flags.some((t) => t.name === "help")) {
    io.stdout.write(spec.usage);
    return { ok: false, exitCode: 0 };
  }
  if (flags.some((t) => t.name === "version")) {
    io.stdout.write(versionLine());
    return { ok: false, exitCode: 0 };
  }
  const unknown = [...new Set(flags.filter((t) => !Object.hasOwn(options, t.name)).map((t) => t.rawName))];
  if (unknown.length > 0) {
    return usageError(`unknown option${unknown.length === 1 ? "" : "s"} ${unknown.join(", ")}`);
  }
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options: spec.options,
      strict: true,
      allowPositionals: spec.positionals ?? false,
    });
    return { ok: true, values: values as Values<O>, positionals };
  } catch (error) {
    return usageError(plainParseError(error));
  }
}

/** node:util's messages, without their advice about `--` (none of our commands takes a value starting with -). */
function plainParseError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\. To specify a positional argument.*$/s, "").replace(/\.$/, "");
}
