#!/usr/bin/env node
// The `order-desk` command. It runs the compiled app (plain JavaScript: less memory, faster start), which
// `npm run build` makes (so does `npm install` in a checkout, through the `prepare` script): the bundle in
// dist/bundle/ when there is one, else dist/ file by file. The image ships the build alone. In a checkout where a
// file under src/ changed since the build, or that was never built, it runs the TypeScript sources through tsx (a
// development dependency), so an edit is never hidden behind a stale build; where tsx is not installed it says to
// run `npm run build` instead.
import { existsSync } from "node:fs";
import module from "node:module";
import { builtAndFresh } from "./build-state.js";
import { execWithMallocTrim } from "./malloc-trim.js";

// Below 22.19 the dependencies fail in ways that do not name the cause (pg-boss, undici and the AWS SDK need 22).
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  console.error(
    `order-desk: needs Node.js 22.19 or newer (24 LTS recommended); this is ${process.version}. ` +
      "Install Node 24, or in a checkout run it through npm (`npm start`, `npm run …`), which uses the Node 24 of " +
      "node_modules/.bin. See docs/node-versions.md.",
  );
  process.exit(1);
}

// The long-running command gives memory back to the system as it frees it (malloc-trim.js); may replace this process.
if (process.argv[2] === "start") execWithMallocTrim();

const hasBuild = existsSync(new URL("../dist/cli/main.js", import.meta.url));
const hasSources = existsSync(new URL("../src/cli/main.ts", import.meta.url));

if (hasBuild && (!hasSources || builtAndFresh())) {
  // V8's compilation of the build kept between runs (Node's compile cache, in the system's temporary directory unless
  // NODE_COMPILE_CACHE names another; never an error when it cannot be written): a restart compiles ≈ 7 MB of
  // JavaScript less. `order-desk start` writes it once it is ready (src/cli/start.ts), every command when it exits.
  module.enableCompileCache?.();
  const bundled = new URL("../dist/bundle/main.js", import.meta.url);
  await import(existsSync(bundled) ? bundled.href : "../dist/cli/main.js");
} else {
  let tsx;
  try {
    tsx = await import("tsx/esm/api");
  } catch (error) {
    if (error?.code !== "ERR_MODULE_NOT_FOUND") throw error;
  }
  if (!tsx || !hasSources) {
    console.error(
      hasBuild
        ? "order-desk: dist/ is older than the sources in src/. Run `npm run build` to compile them."
        : "order-desk: there is no build in dist/. Run `npm run build` (it needs the development " +
            "dependencies: `npm install`), or run the container image, which ships the build.",
    );
    process.exit(1);
  }
  tsx.register();
  await import("../src/cli/main.ts");
}
