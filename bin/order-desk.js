#!/usr/bin/env node
// The `order-desk` command. It runs the compiled app (plain JavaScript: less memory, faster start) when
// `npm run build` (or the install's `prepare`) made it and no source file changed since: the bundle in
// dist/bundle/ when there is one, else dist/ file by file. Otherwise it runs the TypeScript sources through
// tsx, so an edit is never hidden behind a stale build. `bench` always runs from the sources: its harness
// (bench/) is not compiled.
import { existsSync } from "node:fs";
import { builtAndFresh } from "./build-state.js";

if (process.argv[2] !== "bench" && builtAndFresh()) {
  const bundled = new URL("../dist/bundle/main.js", import.meta.url);
  await import(existsSync(bundled) ? bundled.href : "../dist/cli/main.js");
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/cli/main.ts");
}
