/**
 * `order-desk <command>`: the one command line. Each command is loaded only when it runs, so
 * `order-desk place` does not pay for Slack, the store or the queue.
 */
import { processEnvironment } from "../config.ts";

const io = { stdout: process.stdout, stderr: process.stderr };

const USAGE = `Usage: order-desk <command> [options]

Commands:
  start      run Order Desk (Slack app, supplier webhooks, job workers)
  place      place one order from a JSON file            (order-desk place --help)
  sandbox    run the supplier sandbox                     (order-desk sandbox --help)
  doctor     check configuration, Slack, supplier, secrets and the database
  jobs       list and retry failed jobs (PostgreSQL)      (order-desk jobs --help)
  orders     export a month's orders as CSV (PostgreSQL)  (order-desk orders --help)
  events     try a supplier event against the mapping; reprocess unreadable ones (order-desk events --help)

See README.md for configuration. In a checkout of the repository, \`npm run demo\` runs the whole flow
offline and \`npm run bench\` the benchmarks.
`;

type Command = (argv: string[]) => Promise<number | undefined>;

/** What a checkout runs through npm (tools/, bench/: never built into dist/); the installed command points there. */
const DEVELOPMENT_ONLY: Record<string, string> = { demo: "npm run demo", bench: "npm run bench" };

const commands: Record<string, Command> = {
  start: async () => {
    const { runStart } = await import("../main.ts");
    return runStart(processEnvironment());
  },
  place: async (argv) => {
    const { runPlace } = await import("./place.ts");
    return runPlace(argv, processEnvironment(), io);
  },
  sandbox: async (argv) => {
    const { runSandboxCommand } = await import("./sandbox.ts");
    return runSandboxCommand(argv, io);
  },
  doctor: async (argv) => {
    const { runDoctor } = await import("./doctor.ts");
    return runDoctor(argv, processEnvironment(), io);
  },
  jobs: async (argv) => {
    const { runJobs } = await import("./jobs.ts");
    return runJobs(argv, processEnvironment(), io);
  },
  orders: async (argv) => {
    const { runOrders } = await import("./orders.ts");
    return runOrders(argv, processEnvironment(), io);
  },
  events: async (argv) => {
    const { runEvents } = await import("./events.ts");
    return runEvents(argv, processEnvironment(), io);
  },
};

const [name, ...rest] = process.argv.slice(2);
if (name === undefined || name === "help" || name === "--help" || name === "-h") {
  io.stdout.write(USAGE);
} else {
  const command = commands[name];
  const moved = DEVELOPMENT_ONLY[name];
  if (!command && moved) {
    io.stderr.write(
      `order-desk: '${name}' is a development tool, not part of the installed command: run \`${moved}\` ` +
        "in a checkout of the repository.\n",
    );
    process.exitCode = 2;
  } else if (!command) {
    io.stderr.write(`order-desk: unknown command '${name}'\n\n${USAGE}`);
    process.exitCode = 2;
  } else {
    const code = await command(rest);
    if (code !== undefined) process.exitCode = code;
  }
}
