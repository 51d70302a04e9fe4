/**
 * `order-desk <command>`: the one command line. Each command is loaded only when it runs, so
 * `order-desk place` does not pay for Slack, the store or the queue.
 */
import { processEnvironment } from "../config.ts";

const io = { stdout: process.stdout, stderr: process.stderr };

const USAGE = `Usage: order-desk <command> [options]

Commands:
  start      run Order Desk (Slack app, supplier webhooks, job workers)
  demo       run the whole flow offline: sandbox supplier, fake Slack, Order Desk, three orders
  place      place one order from a JSON file            (order-desk place --help)
  sandbox    run the supplier sandbox                     (order-desk sandbox --help)
  doctor     check configuration, Slack, supplier, secrets and the database
  bench      run the benchmarks and write bench/RESULTS.md

See README.md for configuration.
`;

type Command = (argv: string[]) => Promise<number | undefined>;

const commands: Record<string, Command> = {
  start: async () => {
    const { runStart } = await import("../main.ts");
    return runStart(processEnvironment());
  },
  demo: async (argv) => {
    const { runDemo } = await import("../demo/run.ts");
    return runDemo(argv, io);
  },
  place: async (argv) => {
    const { runPlace } = await import("./place.ts");
    return runPlace(argv, processEnvironment(), io);
  },
  sandbox: async (argv) => {
    const { runSandbox } = await import("../sandbox/cli.ts");
    return runSandbox(argv, io);
  },
  doctor: async (argv) => {
    const { runDoctor } = await import("./doctor.ts");
    return runDoctor(argv, processEnvironment(), io);
  },
  bench: async (argv) => {
    // The harness lives outside src/ and is never compiled into dist/: bin/order-desk.js runs `bench` from
    // the TypeScript sources. A path in a variable keeps the build from following it.
    const harness = "../../bench/run.ts";
    const { runBench } = (await import(harness)) as { runBench(argv: string[]): Promise<number> };
    return runBench(argv);
  },
};

const [name, ...rest] = process.argv.slice(2);
if (name === undefined || name === "help" || name === "--help" || name === "-h") {
  io.stdout.write(USAGE);
} else {
  const command = commands[name];
  if (!command) {
    io.stderr.write(`order-desk: unknown command '${name}'\n\n${USAGE}`);
    process.exitCode = 2;
  } else {
    const code = await command(rest);
    if (code !== undefined) process.exitCode = code;
  }
}
