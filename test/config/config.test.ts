import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";

const minimal = {
  SLACK_BOT_TOKEN: "xoxb-test",
  SLACK_APP_TOKEN: "xapp-test",
  SUPPLIER_BASE_URL: "http://127.0.0.1:4010",
  SUPPLIER_API_KEY_SECRET_ID: "order-desk/supplier",
  WEBHOOK_SECRETS: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe("loadConfig", () => {
  it("fills every default from a minimal environment", () => {
    const config = loadConfig(minimal);
    expect(config.slack.mode).toBe("socket");
    expect(config.http.port).toBe(3000);
    // Metrics and readiness details listen on loopback unless told otherwise.
    expect(config.ops).toEqual({ host: "127.0.0.1", port: 9464 });
    expect(config.store).toEqual({ dataDir: "./data" });
    expect(config.supplier).toEqual({
      baseUrl: "http://127.0.0.1:4010",
      environment: "test",
      timeoutMs: 15000,
      maxAttempts: 3,
    });
    expect(config.webhooks.secrets).toHaveLength(1);
  });

  it("lists every problem at once, each naming its variable", () => {
    const problems = problemsOf({
      HTTP_PORT: "eighty",
      SLACK_MODE: "websocket",
      SUPPLIER_BASE_URL: "ftp://x",
    });
    const names = problems.map((p) => p.split(":")[0]);
    expect(names).toEqual(
      expect.arrayContaining([
        "HTTP_PORT",
        "SLACK_MODE",
        "SUPPLIER_BASE_URL",
        "SLACK_BOT_TOKEN",
        "SUPPLIER_API_KEY_SECRET_ID",
        "WEBHOOK_SECRETS",
      ]),
    );
  });

  it("rejects an unknown variable with one of our prefixes as a likely typo", () => {
    expect(problemsOf({ ...minimal, SUPPLIER_BASEURL: "http://x" })).toEqual([
      "SUPPLIER_BASEURL: unknown variable; did you mean SUPPLIER_BASE_URL?",
    ]);
    expect(problemsOf({ ...minimal, SLACK_SIGNING_SECERT: "x", ORDER_DESK_FOO: "1" })).toEqual([
      "SLACK_SIGNING_SECERT: unknown variable; did you mean SLACK_SIGNING_SECRET?",
      "ORDER_DESK_FOO: unknown variable (a typo?); remove it or use one of the documented names",
    ]);
  });

  it("says 1 problem, not 1 problem(s)", () => {
    const { SUPPLIER_BASE_URL: _, ...withoutUrl } = minimal;
    expect(() => loadConfig(withoutUrl)).toThrow(/^Order Desk's configuration has 1 problem:\n/);
  });

  it("refuses a key in the environment and a secret id together", () => {
    expect(problemsOf({ ...minimal, SUPPLIER_API_KEY: "ods_test_0123456789abcdef0123456789abcdef" })).toEqual(
      [expect.stringMatching(/set one, not both/)],
    );
  });

  it("requires the signing secret in HTTP mode and the app token in Socket Mode", () => {
    const { SLACK_APP_TOKEN: _, ...withoutAppToken } = minimal;
    expect(problemsOf(withoutAppToken)).toEqual([expect.stringMatching(/^SLACK_APP_TOKEN: required/)]);
    expect(problemsOf({ ...minimal, SLACK_MODE: "http" })).toEqual([
      expect.stringMatching(/^SLACK_SIGNING_SECRET: required/),
    ]);
  });

  it("refuses the operations listener on the public port", () => {
    expect(problemsOf({ ...minimal, HTTP_PORT: "8080", OPS_HTTP_PORT: "8080" })).toEqual([
      expect.stringMatching(/^OPS_HTTP_PORT: must differ from HTTP_PORT/),
    ]);
    expect(problemsOf({ ...minimal, HTTP_PORT: "0", OPS_HTTP_PORT: "0" })).toEqual([]);
  });

  it("never echoes a secret's value in a problem", () => {
    const problems = problemsOf({ ...minimal, WEBHOOK_SECRETS: "not-a-secret-format-value" });
    expect(problems.join("\n")).not.toContain("not-a-secret-format-value");
  });
});
