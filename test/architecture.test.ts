/**
 * The rules of ARCHITECTURE.md ("the parts and who may depend on whom"), checked on every run instead of
 * remembered. Each source file's imports are read as text (TypeScript's own import scanner: static imports,
 * re-exports and `import("…")`), resolved, and held against the rules below.
 *
 * An exception is listed by name in a KNOWN_* list below, with the rule it breaks and what ends it, so that any
 * new violation fails; an entry that no longer matches anything fails too: delete it. Since the issue "One clear
 * house" every list is empty and stays so: a file that breaks a rule is fixed, not listed.
 */
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, posix, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const MAX_LINES = 400;

interface Source {
  /** Relative to the repository, with `/`. */
  path: string;
  text: string;
  /** Every module specifier the file imports or re-exports, as written. */
  specifiers: string[];
}

function toPosix(path: string): string {
  return path.split(sep).join("/");
}

function sourcesIn(dir: string): Source[] {
  const found: Source[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = join(at, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules" && !entry.name.startsWith(".")) walk(full);
      } else if (/\.(ts|js|mjs)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) {
        const text = readFileSync(full, "utf8");
        const specifiers = ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
        found.push({ path: toPosix(relative(ROOT, full)), text, specifiers });
      }
    }
  };
  walk(join(ROOT, dir));
  return found;
}

const BUILTINS = new Set(builtinModules);

/** The package a bare specifier names (`@scope/name` or `name`); null for relative paths and Node's own. */
function packageOf(specifier: string): string | null {
  if (specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("node:")) return null;
  const parts = specifier.split("/");
  const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] as string);
  return BUILTINS.has(name) ? null : name;
}

/** A relative specifier resolved to a repository path (`src/jobs/index.ts`); null for packages. */
function resolved(from: Source, specifier: string): string | null {
  if (!specifier.startsWith(".")) return null;
  return posix.normalize(posix.join(posix.dirname(from.path), specifier));
}

/** `file → what it imports that breaks the rule` over `sources`, for the specifiers `breaks` picks. */
function violations(sources: Source[], breaks: (source: Source, specifier: string) => string | null) {
  const found: Record<string, string[]> = {};
  for (const source of sources) {
    const hits = [...new Set(source.specifiers.map((s) => breaks(source, s)).filter((s) => s !== null))];
    if (hits.length > 0) found[source.path] = hits.sort();
  }
  return found;
}

/** Found violations minus the known ones; plus known entries that no longer happen (to be deleted). */
function beyondKnown(found: Record<string, string[]>, known: Record<string, readonly string[]>) {
  const fresh: Record<string, string[]> = {};
  for (const [path, hits] of Object.entries(found)) {
    const extra = hits.filter((h) => !known[path]?.includes(h));
    if (extra.length > 0) fresh[path] = extra;
  }
  const stale: string[] = [];
  for (const [path, hits] of Object.entries(known)) {
    for (const hit of hits) if (!found[path]?.includes(hit)) stale.push(`${path} → ${hit}`);
  }
  return { fresh, stale };
}

const src = sourcesIn("src");
/** What is never shipped: the tools, the tests, the benchmarks and the `order-desk` command's launcher. */
const development = ["tools", "test", "bench", "bin"].flatMap(sourcesIn);
const inFolder = (folder: string) => src.filter((s) => s.path.startsWith(`src/${folder}/`));

/** Known: none left (the Slack adapters live in slack/outbound/, behind the ports orders/ declares). */
const KNOWN_DOMAIN_TRANSPORT: Record<string, readonly string[]> = {};

/**
 * Known: none left (the last three were split into files with one job each). A file that grows past the limit
 * is split, not listed here.
 */
const KNOWN_LONG_FILES: Record<string, number> = {};

/**
 * Known: slack/ files that still read the store's repositories themselves. Each is being changed on another
 * branch, so it is not edited here: it moves behind an orders/ function after the attach/approvals branches
 * merge. Keyed by file, with what it imports.
 */
const KNOWN_SLACK_STORE_READS: Record<string, readonly string[]> = {};

describe("the architecture's import rules", () => {
  it("orders/ (the domain) imports no Slack SDK, queue library, database driver or HTTP stack", () => {
    const FORBIDDEN = [/^@slack\//, /^pg-boss$/, /^pg$/, /^pg-protocol$/, /^@electric-sql\//, /^undici$/];
    const HTTP = new Set(["node:http", "node:https", "http", "https", "node:http2", "http2"]);
    const found = violations(inFolder("orders"), (_, specifier) => {
      const name = packageOf(specifier);
      if (HTTP.has(specifier)) return specifier;
      return name !== null && FORBIDDEN.some((re) => re.test(name)) ? name : null;
    });
    const { fresh, stale } = beyondKnown(found, KNOWN_DOMAIN_TRANSPORT);
    expect(fresh, "talk to Slack, the queue or the database through a port (orders/ports.ts)").toEqual({});
    expect(stale, "no longer imported: remove from KNOWN_DOMAIN_TRANSPORT").toEqual([]);
  });

  it("orders/ imports nothing of the transports above it (slack/, webhooks/, http/)", () => {
    const found = violations(inFolder("orders"), (source, specifier) => {
      const target = resolved(source, specifier);
      return target !== null && /^src\/(?:slack|webhooks|http)\//.test(target) ? target : null;
    });
    expect(
      found,
      "hand the domain what it needs through a port (e.g. UpdatePresenter for Block Kit)",
    ).toEqual({});
  });

  it("slack/ holds no business rule: it reaches orders through orders/, never the store's repositories or SQL", () => {
    // What slack/ may name of the store: the handle it passes on to orders/ (db.ts) and the store's errors.
    const ALLOWED = new Set(["src/store/db.ts", "src/store/errors.ts"]);
    const found = violations(inFolder("slack"), (source, specifier) => {
      const target = resolved(source, specifier);
      return target?.startsWith("src/store/") && !ALLOWED.has(target) ? target : null;
    });
    const { fresh, stale } = beyondKnown(found, KNOWN_SLACK_STORE_READS);
    expect(fresh, "read and change orders through a function in src/orders/ (e.g. orders/lookup.ts)").toEqual(
      {},
    );
    expect(stale, "no longer imported: remove from KNOWN_SLACK_STORE_READS").toEqual([]);
    // Nor SQL of its own on the store it is handed.
    const sql = inFolder("slack")
      .filter((s) => /\.query\s*\(/.test(s.text))
      .map((s) => s.path);
    expect(sql, "a query in slack/: put it in src/store/repositories/, behind an orders/ function").toEqual(
      [],
    );
  });

  it("only the outbound module (slack/outbound/) imports @slack/web-api or builds a Web API client", () => {
    const OUTBOUND = "src/slack/outbound/";
    const found = violations(src, (source, specifier) =>
      packageOf(specifier) === "@slack/web-api" && !source.path.startsWith(OUTBOUND) ? specifier : null,
    );
    expect(found, "call Slack through src/slack/outbound/ (createSlackWebClient, toSlackCallError)").toEqual(
      {},
    );
    // Bolt re-exports the SDK as `webApi`: a client built or an error class tested through it counts too.
    const around = src
      .filter((s) => !s.path.startsWith(OUTBOUND))
      .filter((s) =>
        /new\s+(?:webApi\.)?WebClient\b|webApi\.(?:WebAPI\w*Error|ErrorCode)\b|retryConfig\s*:/.test(s.text),
      )
      .map((s) => s.path);
    expect(around, "use createSlackWebClient / slackClientOptions and SlackCallError").toEqual([]);
  });

  it("orders/model/ (the Order, its statuses and failures) stands on the supplier contract and zod alone", () => {
    const found = violations(inFolder("orders/model"), (source, specifier) => {
      const target = resolved(source, specifier);
      if (target === null)
        return packageOf(specifier) === "zod" || packageOf(specifier) === null ? null : specifier;
      return target.startsWith("src/orders/model/") || target.startsWith("src/supplier/") ? null : target;
    });
    expect(
      found,
      "the model is data and rules: store, Slack and jobs depend on it, never the reverse",
    ).toEqual({});
  });

  it("only the queue's adapter (jobs/pgboss/) imports pg-boss; the rest of the app sees jobs/jobs.ts", () => {
    const found = violations(src, (source, specifier) =>
      packageOf(specifier) === "pg-boss" && !source.path.startsWith("src/jobs/pgboss/") ? specifier : null,
    );
    expect(found, "use the Jobs interface (src/jobs/jobs.ts) instead").toEqual({});
    expect(inFolder("jobs/pgboss").some((s) => s.specifiers.includes("pg-boss"))).toBe(true);
  });

  it("sandbox/ (a stand-alone supplier) imports nothing of the app but the supplier contract", () => {
    const found = violations(inFolder("sandbox"), (source, specifier) => {
      const target = resolved(source, specifier);
      if (target === null) return null;
      return target.startsWith("src/sandbox/") || target.startsWith("src/supplier/") ? null : target;
    });
    expect(found, "the sandbox may use src/supplier/ (the contract), nothing else of src/").toEqual({});
  });

  it("nothing in src/ (what ships) imports tools/ or bench/, not even through a path in a variable", () => {
    const found = violations(src, (source, specifier) => {
      const target = resolved(source, specifier);
      return target !== null && !target.startsWith("src/") ? target : null;
    });
    expect(found, "src/ imports only src/ and packages").toEqual({});
    // A path kept in a string (a dynamic import through a variable) is caught here.
    const paths = src.filter((s) => /["'`](?:\.\.\/)+(?:tools|bench)\//.test(s.text)).map((s) => s.path);
    expect(paths, "a path out of src/ into tools/ or bench/").toEqual([]);
  });

  it("tools/ and bench/ import nothing of test/: what they share with the tests lives in tools/", () => {
    const found = violations(
      development.filter((s) => s.path.startsWith("tools/") || s.path.startsWith("bench/")),
      (source, specifier) => {
        const target = resolved(source, specifier);
        return target?.startsWith("test/") ? target : null;
      },
    );
    expect(found, "move the shared fixture to tools/ and import it from there in test/ too").toEqual({});
  });

  it("every package src/ imports is a production dependency; tools/, test/, bench/ and bin/ declare theirs", () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    const production = new Set(Object.keys(manifest.dependencies));
    const declared = new Set([...production, ...Object.keys(manifest.devDependencies)]);
    const undeclared = (sources: Source[], allowed: Set<string>) =>
      violations(sources, (_, specifier) => {
        const name = packageOf(specifier);
        return name !== null && !allowed.has(name) ? name : null;
      });
    expect(undeclared(src, production), "add it to package.json `dependencies`").toEqual({});
    expect(undeclared(development, declared), "add it to package.json `devDependencies`").toEqual({});
  });

  it(`no source file in src/ is over ${MAX_LINES} lines`, () => {
    const lines = (s: Source) => s.text.split("\n").length - (s.text.endsWith("\n") ? 1 : 0);
    const tooLong: Record<string, number> = {};
    for (const source of src) {
      const n = lines(source);
      if (n > (KNOWN_LONG_FILES[source.path] ?? MAX_LINES)) tooLong[source.path] = n;
    }
    expect(tooLong, `split files over ${MAX_LINES} lines into parts with one job each`).toEqual({});
    const stale = Object.keys(KNOWN_LONG_FILES).filter((path) => {
      const source = src.find((s) => s.path === path);
      return !source || lines(source) <= MAX_LINES;
    });
    expect(stale, `within ${MAX_LINES} lines now: remove from KNOWN_LONG_FILES`).toEqual([]);
  });

  it("every index.ts in src/ is imported somewhere: no barrel that only pretends to be the way in", () => {
    const imported = new Set(
      [...src, ...development].flatMap((s) => s.specifiers.map((specifier) => resolved(s, specifier))),
    );
    const unused = src
      .filter((s) => s.path.endsWith("/index.ts") && !imported.has(s.path))
      .map((s) => s.path);
    expect(unused, "import through it, or delete it (deep imports are the norm)").toEqual([]);
  });

  it("reads the tree it checks (the scan finds the folders the rules are about)", () => {
    for (const folder of ["orders", "orders/model", "sandbox", "slack", "jobs", "store", "supplier"]) {
      expect(inFolder(folder).length, folder).toBeGreaterThan(0);
    }
    expect(src.some((s) => s.specifiers.includes("@slack/bolt"))).toBe(true);
  });
});
