/**
 * `order-desk <command>`: the one command line. Each command is loaded only when it runs, so
 * `order-desk place` does not pay for Slack, the store or the queue. A new command is one entry in `COMMANDS`
 * (its line in the usage comes from there) and declares its flags with `parseCommandArgs` (args.ts).
 */
import { processEnvironment } from "../config.ts";
import { versionLine } from "./args.ts";
import { holdYoungGeneration } from "./young-generation.ts";

const io = { stdout: process.stdout, stderr: process.stderr };

type Command = (argv: string[]) => Promise<number | undefined>;

interface CommandEntry {
  /** One line in `order-desk --help`. */
  summary: string;
  run: Command;
}

const COMMANDS: Record<string, CommandEntry> = {
  start: {
    summary: "run Order Desk (Slack app, supplier webhooks, job workers)",
    run: async (argv) => {
      holdYoungGeneration(); // before the app's modules load: released once it is ready (young-generation.ts)
      return (await import("./start.ts")).runStart(argv, processEnvironment(), io);
    },
  },
  migrate: {
    summary: "apply the database migrations this version needs, then exit",
    run: async (argv) => (await import("./migrate.ts")).runMigrate(argv, processEnvironment(), io),
  },
  doctor: {
    summary: "check configuration, Slack, supplier, secrets and the database",
    run: async (argv) => (await import("./doctor.ts")).runDoctor(argv, processEnvironment(), io),
  },
  place: {
    summary: "place one order from a JSON file",
    run: async (argv) => (await import("./place.ts")).runPlace(argv, processEnvironment(), io),
  },
  sandbox: {
    summary: "run the supplier sandbox",
    run: async (argv) => (await import("./sandbox.ts")).runSandboxCommand(argv, io),
  },
  jobs: {
    summary: "list and retry failed jobs (PostgreSQL)",
    run: async (argv) => (await import("./jobs.ts")).runJobs(argv, processEnvironment(), io),
  },
  orders: {
    summary: "export a month's orders as CSV (PostgreSQL)",
    run: async (argv) => (await import("./orders.ts")).runOrders(argv, processEnvironment(), io),
  },
  events: {
    summary: "try a supplier event against the mapping; reprocess unreadable ones",
    run: async (argv) => (await import("./events.ts")).runEvents(argv, processEnvironment(), io),
  },
};

const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
const USAGE = `Usage: order-desk <command> [options]
       order-desk <command> --help
       order-desk --version

Commands:
${Object.entries(COMMANDS)
  .map(([name, { summary }]) => `  ${name.padEnd(width)}  ${summary}`)
  .join("\n")}

Every command answers --help. Configuration: the environment (see README.md and .env.example). In a checkout of
the repository, \`npm run demo\` runs the whole flow offline and \`npm run bench\` the benchmarks.
`;

/** What a checkout runs through npm (tools/, bench/: never built into dist/); the installed command points there. */
const DEVELOPMENT_ONLY: Record<string, string> = { demo: "npm run demo", bench: "npm run bench" };

const [name, ...rest] = process.argv.slice(2);
if (name === undefined || name === "help" || name === "--help" || name === "-h") {
  io.stdout.write(USAGE);
} else if (name === "--version" || name === "-V" || name === "version") {
  io.stdout.write(versionLine());
} else {
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  const moved = DEVELOPMENT_ONLY[name];
  if (!command && moved) {
    io.stderr.write(
      `order-desk: '${name}' is a development tool, not part of the installed command: run \`${moved}\` ` +
        "in a checkout of the repository.\n",
    );
    process.exitCode = 2;
  } else if (!command) {
    io.stderr.write(
      `order-desk: unknown ${name.startsWith("-") ? "option" : "command"} '${name}'\n\n${USAGE}`,
    );
    process.exitCode = 2;
  } else {
    const code = await command.run(rest);
    if (code !== undefined) process.exitCode = code;
  }
}
