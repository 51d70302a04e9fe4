/**
 * `node unpack-main.js ARCHIVE PARTIAL_DIR`: unpacks the embedded store's prebuilt data directory (a gzipped tar)
 * into PARTIAL_DIR, which it creates, and prints what it wrote as JSON. Run by `restoreDataTemplate`
 * (data-template.ts) in a child process, so the memory the unpacking takes is given back when it exits.
 *
 * It imports nothing but tar.ts and Node's own modules: this process's start-up is part of a first start. It
 * stops when the process that started it is gone (checked before each file): that one renames the result into
 * place, and a new one removes what is left and starts over.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { extractTar } from "./tar.ts";

const [archive, partial] = process.argv.slice(2);
if (!archive || !partial) {
  process.stderr.write("usage: unpack-main.js ARCHIVE PARTIAL_DIR\n");
  process.exit(2);
}
const parent = process.ppid;
// PostgreSQL refuses a data directory that others may read.
mkdirSync(partial, { mode: 0o700 });
const summary = extractTar(gunzipSync(readFileSync(archive)), partial, () => {
  if (process.ppid !== parent) process.exit(3);
});
process.stdout.write(JSON.stringify(summary));
