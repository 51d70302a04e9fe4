import { EventEmitter } from "node:events";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { runSandbox, type SandboxIo } from "../../src/sandbox/cli.ts";
import type { SandboxHandle } from "../../src/sandbox/sandbox.ts";
import { createOrder, dispatcher, KEY, validOrder } from "./support.ts";

afterAll(() => dispatcher.close());

interface Run {
  exit: Promise<number>;
  stdout: () => string;
  stderr: () => string;
  ready: Promise<SandboxHandle>;
  stop: (signal?: "SIGINT" | "SIGTERM") => Promise<number>;
}

function run(argv: string[]): Run {
  const out: string[] = [];
  const err: string[] = [];
  const signals = new EventEmitter();
  let onReady: (handle: SandboxHandle) => void = () => {};
  const ready = new Promise<SandboxHandle>((resolve) => {
    onReady = resolve;
  });
  const io: SandboxIo = {
    stdout: { write: (chunk: string) => out.push(chunk) },
    stderr: { write: (chunk: string) => err.push(chunk) },
    signals,
    logger: pino({ level: "silent" }),
    onReady,
  };
  const exit = runSandbox(argv, io);
  return {
    exit,
    stdout: () => out.join(""),
    stderr: () => err.join(""),
    ready,
    stop: async (signal = "SIGTERM") => {
      signals.emit(signal);
      return exit;
    },
  };
}

describe("order-desk sandbox", () => {
  it("prints its URL and a generated ods_test_ key it accepts, then stops cleanly on SIGTERM", async () => {
    const sandbox = run(["--port", "0", "--seed", "9", "--speed", "600"]);
    const handle = await sandbox.ready;
    const lines = sandbox.stdout().split("\n");
    expect(lines[0]).toBe(`sandbox listening on ${handle.url}`);
    expect(lines[0]).toMatch(/^sandbox listening on http:\/\/127\.0\.0\.1:\d+$/);
    const key = /accepted test API key \(customer default\): (ods_test_[0-9a-f]{32})$/.exec(
      lines[1] ?? "",
    )?.[1];
    expect(key).toBeDefined();
    expect(sandbox.stdout()).toContain("speed 600x, seed 9, orders in memory");
    expect((await createOrder(handle.url, validOrder(), key)).status).toBe(200);
    expect(await sandbox.stop()).toBe(0);
    expect(sandbox.stdout()).toMatch(/sandbox stopped\n$/);
    await expect(createOrder(handle.url, validOrder(), key)).rejects.toThrow();
  });

  it("stops on SIGINT too", async () => {
    const sandbox = run(["--port", "0"]);
    await sandbox.ready;
    expect(await sandbox.stop("SIGINT")).toBe(0);
    expect(sandbox.stdout()).toContain("sandbox stopped");
  });

  it("prints given keys redacted, with their customers, and a generated webhook secret in full", async () => {
    const sandbox = run([
      "--port",
      "0",
      "--api-key",
      `acme:${KEY}`,
      "--api-key",
      "ods_test_fedcba9876543210fedcba9876543210",
      "--webhook-url",
      "http://127.0.0.1:9/webhooks",
    ]);
    await sandbox.ready;
    const text = sandbox.stdout();
    expect(text).toContain("accepted test API key (customer acme): ods_test_…cdef");
    expect(text).toContain("accepted test API key (customer default): ods_test_…3210");
    expect(text).not.toContain(KEY);
    expect(text).toMatch(/webhook signing secret \(generated\): whsec_[A-Za-z0-9+/]{43}=/);
    expect(await sandbox.stop()).toBe(0);
  });

  it("sends the alt dialect with --dialect alt, saying so, with a generated HMAC secret printed in full", async () => {
    const sandbox = run(["--port", "0", "--dialect", "alt", "--webhook-url", "http://127.0.0.1:9/webhooks"]);
    const handle = await sandbox.ready;
    expect(handle.dialect).toBe("alt");
    const text = sandbox.stdout();
    expect(text).toContain(
      "webhooks: POST http://127.0.0.1:9/webhooks, alt dialect, HMAC-SHA256 signatures (X-Supplier-Signature)",
    );
    expect(text).toMatch(/webhook signing secret \(generated\): [0-9a-f]{64}\n/);
    expect(await sandbox.stop()).toBe(0);
  });

  it("refuses an unknown --dialect (exit 2) and a secret the alt dialect cannot use (exit 1)", async () => {
    const unknown = run(["--port", "0", "--dialect", "xml"]);
    expect(await unknown.exit).toBe(2);
    expect(unknown.stderr()).toContain('--dialect must be one of default, alt (got "xml")');
    const weak = run([
      "--port",
      "0",
      "--dialect",
      "alt",
      "--webhook-url",
      "http://127.0.0.1:9/w",
      "--webhook-secret",
      "short-secret",
    ]);
    expect(await weak.exit).toBe(1);
    expect(weak.stderr()).toContain("needs at least 16");
    expect(weak.stderr()).not.toContain("short-secret");
  });

  it("never prints a webhook secret it was given", async () => {
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const sandbox = run([
      "--port",
      "0",
      "--webhook-url",
      "http://127.0.0.1:9/hook",
      "--webhook-secret",
      secret,
    ]);
    await sandbox.ready;
    expect(sandbox.stdout()).not.toContain(secret.slice(6));
    expect(await sandbox.stop()).toBe(0);
  });

  it("lists every bad flag at once and exits 2", async () => {
    const sandbox = run(["--port", "99999", "--speed", "0", "--fail-rate", "1.5", "--log-level", "loud"]);
    expect(await sandbox.exit).toBe(2);
    const text = sandbox.stderr();
    expect(text).toContain("--port must be a port number");
    expect(text).toContain("--speed must be a number > 0");
    expect(text).toContain("--fail-rate must be a share from 0 to 1");
    expect(text).toContain("--log-level must be one of");
  });

  it("rejects unknown flags and a webhook secret without a URL", async () => {
    const unknown = run(["--prot", "4010"]);
    expect(await unknown.exit).toBe(2);
    expect(unknown.stderr()).toMatch(/--prot/);
    const secretOnly = run(["--webhook-secret", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"]);
    expect(await secretOnly.exit).toBe(2);
    expect(secretOnly.stderr()).toContain("--webhook-secret needs --webhook-url");
  });

  it("refuses to start with a live key, without printing it, and exits 1", async () => {
    const live = `ods_live_${"0123456789abcdef".repeat(2)}`;
    const sandbox = run(["--port", "0", "--api-key", live]);
    expect(await sandbox.exit).toBe(1);
    expect(sandbox.stderr()).toMatch(/test environment and accepts only test keys/);
    expect(sandbox.stderr()).not.toContain(live);
  });

  it("exits 1 with the reason when the port is taken", async () => {
    const first = run(["--port", "0"]);
    const handle = await first.ready;
    const port = new URL(handle.url).port;
    const second = run(["--port", port]);
    expect(await second.exit).toBe(1);
    expect(second.stderr()).toMatch(/could not start: .*EADDRINUSE/);
    expect(await first.stop()).toBe(0);
  });

  it("prints its usage for --help", async () => {
    const sandbox = run(["--help"]);
    expect(await sandbox.exit).toBe(0);
    expect(sandbox.stdout()).toContain("--duplicate-rate");
  });
});
