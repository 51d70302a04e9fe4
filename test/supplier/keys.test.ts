import { describe, expect, it } from "vitest";
import { KeyEnvironmentMismatchError, MalformedApiKeyError } from "../../src/supplier/errors.ts";
import {
  assertKeyMatchesEnvironment,
  parseApiKey,
  redactApiKey,
  scrubApiKey,
} from "../../src/supplier/keys.ts";
import { LIVE_KEY, TEST_KEY } from "./support/fixtures.ts";

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("API keys", () => {
  it("reads the environment and service from the prefix", () => {
    expect(parseApiKey(TEST_KEY)).toEqual({
      environment: "test",
      service: "ods",
      redacted: "ods_test_…cdef",
    });
    expect(parseApiKey(LIVE_KEY)).toEqual({
      environment: "live",
      service: "ods",
      redacted: "ods_live_…3210",
    });
  });

  it.each([
    ["no environment", "ods_0123456789abcdef0123456789abcdef"],
    ["unknown environment", "ods_prod_0123456789abcdef0123456789abcdef"],
    ["31 hex characters", "ods_test_0123456789abcdef0123456789abcde"],
    ["33 hex characters", "ods_test_0123456789abcdef0123456789abcdef0"],
    ["upper-case hex", "ods_test_0123456789ABCDEF0123456789ABCDEF"],
    ["non-hex characters", "ods_test_0123456789abcdef0123456789abcdeg"],
    ["a trailing newline", `${TEST_KEY}\n`],
    ["quotes", `"${TEST_KEY}"`],
    ["an empty value", ""],
  ])("refuses a key with %s, without echoing it", (_, value) => {
    const error = thrown(() => parseApiKey(value));
    expect(error).toBeInstanceOf(MalformedApiKeyError);
    expect((error as MalformedApiKeyError).code).toBe("MALFORMED_API_KEY");
    if (value.length > 4) expect((error as Error).message).not.toContain(value.trim().slice(-8));
  });

  it("says why a pasted key is malformed when it can tell", () => {
    expect((thrown(() => parseApiKey(`${TEST_KEY}\n`)) as Error).message).toMatch(/whitespace/);
    expect(
      (thrown(() => parseApiKey(TEST_KEY.toUpperCase().replace("ODS_TEST", "ods_test"))) as Error).message,
    ).toMatch(/upper-case/);
  });

  it("redacts to the prefix and the last four characters, and hides anything that is not a key", () => {
    expect(redactApiKey(TEST_KEY)).toBe("ods_test_…cdef");
    expect(redactApiKey("hunter2-some-other-secret")).toBe("[redacted]");
    expect(redactApiKey(undefined)).toBe("[no key]");
  });

  it("refuses a live key for a test target and a test key for live", () => {
    const live = thrown(() => assertKeyMatchesEnvironment(LIVE_KEY, "test")) as KeyEnvironmentMismatchError;
    expect(live).toBeInstanceOf(KeyEnvironmentMismatchError);
    expect(live.message).toContain("ods_live_…3210");
    expect(live.message).not.toContain(LIVE_KEY);
    expect(thrown(() => assertKeyMatchesEnvironment(TEST_KEY, "live"))).toBeInstanceOf(
      KeyEnvironmentMismatchError,
    );
    expect(assertKeyMatchesEnvironment(TEST_KEY, "test").environment).toBe("test");
  });

  it("scrubs a key out of text", () => {
    expect(scrubApiKey(`echo: X-Api-Key: ${TEST_KEY}`, TEST_KEY)).toBe("echo: X-Api-Key: ods_test_…cdef");
  });
});
