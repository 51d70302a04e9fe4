/** `npm run demo [-- --speed N --timeout-ms N --keep]`: the offline demo's command line (see run.ts). */
import { runDemo } from "./run.ts";

process.exitCode = await runDemo(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });
