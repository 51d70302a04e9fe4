#!/usr/bin/env node
// The `order-desk` command. It runs the compiled app in dist/ (plain JavaScript: less memory, faster start)
// when `npm run build` (or the install's `prepare`) made it and no source file changed since; otherwise it
// runs the TypeScript sources through tsx, so an edit is never hidden behind a stale build. `bench` always
// runs from the sources: its harness (bench/) is not compiled.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

function builtAndFresh() {
  let built;
  try {
    built = statSync(join(root, "dist", "BUILT")).mtimeMs;
  } catch {
    return false;
  }
  const src = join(root, "src");
  for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && statSync(join(entry.parentPath ?? entry.path, entry.name)).mtimeMs > built)
      return false;
  }
  return true;
}

if (process.argv[2] !== "bench" && builtAndFresh()) {
  await import("../dist/cli/main.js");
} else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/cli/main.ts");
}
