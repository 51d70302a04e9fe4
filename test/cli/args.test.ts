/** The flag handling every `order-desk` command shares (src/cli/args.ts). */
import { describe, expect, it } from "vitest";
import { parseCommandArgs } from "../../src/cli/args.ts";
import { VERSION } from "../../src/version.ts";

const SPEC = {
  name: "example",
  usage: "Usage: order-desk example [--month YYYY-MM] [--json]\n",
  options: { month: { type: "string" }, json: { type: "boolean" } },
} as const;

function parse(argv: string[], spec: Parameters<typeof parseCommandArgs>[0] = SPEC) {
  let out = "";
  let err = "";
  const io = { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) } };
  return { result: parseCommandArgs(spec, argv, io), out: () => out, err: () => err };
}

describe("a command's flags", () => {
  it("are parsed into typed values", () => {
    const { result } = parse(["--month", "2026-11", "--json"]);
    expect(result).toEqual({ ok: true, values: { month: "2026-11", json: true }, positionals: [] });
  });

  it("answer --help and -h with the usage on stdout and exit 0, even beside a mistake", () => {
    for (const argv of [["--help"], ["-h"], ["--nope", "--help"]]) {
      const run = parse(argv);
      expect(run.result).toEqual({ ok: false, exitCode: 0 });
      expect(run.out()).toBe(SPEC.usage);
      expect(run.err()).toBe("");
    }
  });

  it("answer --version with the version", () => {
    const run = parse(["--version"]);
    expect(run.result).toEqual({ ok: false, exitCode: 0 });
    expect(run.out()).toBe(`order-desk ${VERSION} (Node.js ${process.version})\n`);
  });

  it("exit 2 naming every unknown flag, and pointing at --help", () => {
    const run = parse(["--json", "--frob", "-q", "--mnth=2026-11"]);
    expect(run.result).toEqual({ ok: false, exitCode: 2 });
    expect(run.err()).toBe(
      "order-desk example: unknown options --frob, -q, --mnth\nRun 'order-desk example --help' for its options.\n",
    );
  });

  it("exit 2 for a flag without its value, or a positional where none is taken", () => {
    const missing = parse(["--month"]);
    expect(missing.result).toEqual({ ok: false, exitCode: 2 });
    expect(missing.err()).toMatch(/^order-desk example: Option '--month <value>' argument missing\n/);
    const extra = parse(["export"]);
    expect(extra.result).toEqual({ ok: false, exitCode: 2 });
    expect(extra.err()).toMatch(/^order-desk example: Unexpected argument 'export'/);
  });

  it("take positionals when the command says so, and report usage problems its own way when it asks", () => {
    const spec = {
      ...SPEC,
      positionals: true,
      usageError: (message: string, io: { stdout: { write(s: string): unknown } }) =>
        io.stdout.write(`${JSON.stringify({ ok: false, message })}\n`),
    };
    expect(parse(["export", "--json"], spec).result).toMatchObject({ ok: true, positionals: ["export"] });
    const run = parse(["--frob"], spec);
    expect(run.result).toEqual({ ok: false, exitCode: 2 });
    expect(JSON.parse(run.out())).toEqual({ ok: false, message: "unknown option --frob" });
  });
});
