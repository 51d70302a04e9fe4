/**
 * `node unpack-main.js TEMPLATE_DIR PARTIAL_DIR`: unpacks the embedded store's prebuilt data directory into
 * PARTIAL_DIR and prints what it wrote as JSON. Run by `restoreDataTemplate` (data-template.ts) in a child
 * process, so the memory the unpacking takes is given back when it exits. It stops when its parent does (its
 * stdin closes): the parent renames the result into place, and a new parent starts over.
 */
import { unpackArchive } from "./data-template.ts";

const [dir, partial] = process.argv.slice(2);
if (!dir || !partial) {
  process.stderr.write("usage: unpack-main.js TEMPLATE_DIR PARTIAL_DIR\n");
  process.exit(2);
}
process.stdin.on("end", () => process.exit(3));
process.stdin.resume();
const summary = await unpackArchive(dir, partial);
process.stdout.write(JSON.stringify(summary));
process.exit(0);
