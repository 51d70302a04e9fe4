/**
 * The version of this build, from package.json (semantic versioning; CHANGELOG.md says what each one changed).
 * Read from the file beside the sources or the build, so a release needs no step to stamp it: src/, dist/ and the
 * bundle (whose modules keep their own file's location) all resolve `../package.json` to the package's root, and
 * the container image ships package.json there too.
 */
import { readFileSync } from "node:fs";

function readVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      version?: unknown;
    };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    // A copy without its package.json still runs; it just cannot say which version it is.
    return "unknown";
  }
}

export const VERSION: string = readVersion();

/** What the start-up log, `doctor` and the `order_desk_build_info` gauge report. */
export function buildInfo(): { version: string; node: string } {
  return { version: VERSION, node: process.version };
}
