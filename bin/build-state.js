// Whether dist/ holds a build of the current sources: `npm run build` stamped it (dist/BUILT) and no file under
// src/ changed since. Shared by bin/order-desk.js (which runs dist/ only then) and the footprint benchmark
// (which measures `order-desk start` and must not measure the sources through tsx by mistake).
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

export function builtAndFresh() {
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
