/**
 * The embedded store's adapter (src/store/pglite/) is pinned to the PGlite release it was written for: when the
 * installed one changes, these fail and say what to re-check before the pin moves.
 */
import { existsSync, readFileSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { describe, expect, it } from "vitest";
import { currentTemplateIdentity, packageVersion } from "../../src/store/pglite/data-template.ts";
import { PGLITE_WASM } from "../../src/store/pglite/instance.ts";
import { PGLITE_ADAPTER_VERSION } from "../../src/store/pglite/version.ts";

const RECHECK =
  "Before moving PGLITE_ADAPTER_VERSION (src/store/pglite/version.ts) and package.json's exact pin, re-check what " +
  "that file lists: the wire-protocol shim (store/pglite/node-postgres.ts; run test/store/db.test.ts and the " +
  "crash-related store tests), the instance's settings, WebAssembly option and tiering budget " +
  "(store/pglite/instance.ts; npm run bench -- footprint), and the prebuilt data directory and its manifest " +
  "(npm run build, test/store/data-template.test.ts).";

describe("the PGlite adapter's library version", () => {
  it("is the PGlite installed", () => {
    const installed = packageVersion("@electric-sql/pglite");
    expect(
      installed,
      `@electric-sql/pglite ${installed} is installed; the adapter was written for ${PGLITE_ADAPTER_VERSION}. ${RECHECK}`,
    ).toBe(PGLITE_ADAPTER_VERSION);
  });

  it("is the exact version package.json asks for, not a range", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const declared = pkg.dependencies["@electric-sql/pglite"];
    expect(
      declared,
      `package.json asks for @electric-sql/pglite "${declared}": pin it exactly to ${PGLITE_ADAPTER_VERSION}. ${RECHECK}`,
    ).toBe(PGLITE_ADAPTER_VERSION);
  });

  it("is the one the prebuilt data directory's manifest records", () => {
    expect(
      currentTemplateIdentity().pglite,
      `the template manifest would record another PGlite than the adapter's. ${RECHECK}`,
    ).toBe(PGLITE_ADAPTER_VERSION);
  });

  it("keeps the pieces the adapter reaches for where it expects them", () => {
    expect(existsSync(PGLITE_WASM), `no pglite.wasm at ${PGLITE_WASM}. ${RECHECK}`).toBe(true);
    expect(
      typeof PGlite.prototype.execProtocolStream,
      `PGlite has no execProtocolStream, which the wire-protocol shim calls. ${RECHECK}`,
    ).toBe("function");
  });
});
