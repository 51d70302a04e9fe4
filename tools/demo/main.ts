/** `npm run demo [-- --speed N --timeout-ms N --keep]`: the offline demo's command line (see run.ts). */
import { runDemo } from "./run.ts";

// On Node.js 20 the AWS SDK warns on stderr that its releases from January 2027 need Node.js 22. The demo's Secrets
// Manager is a local fake and nothing in it depends on that, so the demo keeps its output to what it shows; the
// Quick start and docs/node-versions.md say what the warning means for `order-desk start`.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

process.exitCode = await runDemo(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });
