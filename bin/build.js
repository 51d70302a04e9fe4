#!/usr/bin/env node
// Compiles src/ to dist/ so that `order-desk` runs as plain JavaScript: through the tsx loader the same app
// took ~70 MB more memory and ~0.3 s more to start (docs/benchmarks.md). Then builds the embedded store's
// prebuilt data directory into dist/store-template/ (src/store/pglite/data-template.ts). Run by `npm run build` and, with
// --if-possible, by `npm install`/`npm ci` (the `prepare` script): there a failed or impossible build (no
// TypeScript in a production install) only prints why, and bin/order-desk.js runs the sources through tsx.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const dist = join(root, "dist");
const lenient = process.argv.includes("--if-possible");

function giveUp(reason, code = 1) {
  if (!lenient) {
    console.error(`build failed: ${reason}`);
    process.exit(code);
  }
  console.warn(
    `order-desk: not built (${reason}); bin/order-desk.js will run the sources through tsx where it is installed.`,
  );
  process.exit(0);
}

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
} catch {
  giveUp("TypeScript is not installed (a production install)");
}

rmSync(dist, { recursive: true, force: true });
const compiled = spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], {
  cwd: root,
  stdio: "inherit",
});
if (compiled.status !== 0) {
  rmSync(dist, { recursive: true, force: true });
  giveUp(`tsc exited with ${compiled.status ?? compiled.signal}`, compiled.status ?? 1);
}

// What the code reads next to itself at run time (the migrations' .sql files).
const src = join(root, "src");
for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || entry.name.endsWith(".ts")) continue;
  const from = join(entry.parentPath ?? entry.path, entry.name);
  const to = join(dist, relative(src, from));
  mkdirSync(dirname(to), { recursive: true });
  cpSync(from, to);
}
// One bundle of the compiled app and its dependencies (dist/bundle/, a chunk per command): loading the per-file
// build read ≈ 900 modules (Bolt and its Express, OAuth and Socket Mode receivers, the AWS SDK, undici, …), and
// resolving and compiling them one by one was ≈ 60 % of the start-up CPU before the store opened. Without it
// (esbuild missing or failing), bin/order-desk.js runs dist/ file by file as before.
const bundled = await bundle();
if (!bundled.ok) {
  rmSync(join(dist, "bundle"), { recursive: true, force: true });
  console.warn(
    `order-desk: not bundled (${bundled.reason}); order-desk runs dist/ file by file, a bit slower to start.`,
  );
}

// The embedded store's prebuilt data directory (src/store/pglite/data-template.ts): a first start unpacks it instead of
// running initdb. A build without it still works: a new embedded store is then created with initdb, as before.
const template = spawnSync(
  process.execPath,
  [join(dist, "cli", "build-store-template.js"), join(dist, "store-template")],
  { cwd: root, stdio: ["ignore", "inherit", "inherit"] },
);
if (template.status !== 0) {
  rmSync(join(dist, "store-template"), { recursive: true, force: true });
  console.warn(
    `order-desk: no prebuilt data directory (its build exited with ${template.status ?? template.signal}); ` +
      "a new embedded store will be created with initdb, which takes a few seconds longer.",
  );
}
// Written last: bin/order-desk.js uses dist/ only while no source file is newer than this stamp.
writeFileSync(join(dist, "BUILT"), `${new Date().toISOString()}\n`);
console.log("order-desk: built dist/");

async function bundle() {
  let esbuild;
  try {
    esbuild = await import("esbuild");
  } catch {
    return { ok: false, reason: "esbuild is not installed" };
  }
  const out = join(dist, "bundle");
  try {
    await esbuild.build({
      entryPoints: [join(dist, "cli", "main.js")],
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "node",
      target: "node20",
      outdir: out,
      // PGlite finds its WebAssembly and file-system bundle next to its own modules.
      external: ["@electric-sql/pglite"],
      // For the bundled CommonJS packages' own require() calls.
      banner: {
        js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
      },
      plugins: [importMetaUrlOfOrigin(out)],
      // Without comments and indentation (identifiers kept, so stack traces still name the functions): 5.2 MB
      // of JavaScript instead of 7.9 MB, ≈ 20 ms less of a start's CPU and ≈ 10 MB less resident, most of it V8's
      // copy of the source. A linked source map (no sources inside; they are the files of dist/ beside it) turns
      // a stack trace back into dist/ lines under `node --enable-source-maps`.
      minifyWhitespace: true,
      minifySyntax: true,
      sourcemap: "linked",
      sourcesContent: false,
      logLevel: "warning",
    });
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message.split("\n")[0] : String(error) };
  }
}

// Our modules find files beside them with `new URL("./migrations/", import.meta.url)`: inside a bundle that URL
// would be the chunk's. Each module's `import.meta.url` becomes its own file's in dist/ (still there, next to
// the bundle), resolved from the chunk at run time, so the build can be moved.
function importMetaUrlOfOrigin(out) {
  return {
    name: "import-meta-url-of-origin",
    setup(build) {
      build.onLoad({ filter: /\.js$/ }, (args) => {
        if (relative(dist, args.path).startsWith("..")) return undefined;
        const source = readFileSync(args.path, "utf8");
        if (!source.includes("import.meta.url")) return undefined;
        const fromChunk = relative(out, args.path).split(sep).join("/");
        return {
          contents: source.replaceAll(
            "import.meta.url",
            `new URL(${JSON.stringify(fromChunk)}, import.meta.url).href`,
          ),
          loader: "js",
        };
      });
    },
  };
}
