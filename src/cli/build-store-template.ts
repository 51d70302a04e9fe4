/**
 * `node dist/cli/build-store-template.js DIR`: writes the embedded store's prebuilt data directory
 * (src/store/pglite/data-template.ts) into DIR. Run by `npm run build` (bin/build.js) once the sources are compiled.
 *
 * The template holds what a first start would otherwise create: PostgreSQL's own files (initdb), our migrations,
 * and pg-boss's schema and queues, which the app's `jobs.start()` creates here exactly as it does at start-up.
 */
import { createJobs } from "../jobs/index.ts";
import { buildDataTemplate } from "../store/pglite/data-template-build.ts";

const dir = process.argv[2];
if (!dir) {
  process.stderr.write("usage: build-store-template.js DIR\n");
  process.exit(2);
}
const started = performance.now();
const manifest = await buildDataTemplate(dir, {
  prepare: async (store) => {
    const jobs = createJobs({ store });
    await jobs.start();
    await jobs.stop({ graceMs: 0 });
  },
});
process.stdout.write(
  `order-desk: built the embedded store's prebuilt data directory (PGlite ${manifest.pglite}, pg-boss ${manifest.pgBoss}, ` +
    `${manifest.migrations.length} migrations) in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
);
