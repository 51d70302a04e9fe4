/** LOG_FORMAT=pretty: the logger's lines, redacted as ever, one readable line an entry. */
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.ts";
import { prettyLine, prettyStream } from "../../src/log-pretty.ts";

describe("LOG_FORMAT=pretty", () => {
  it("writes time, level, message and the fields on one line, still redacted", async () => {
    let out = "";
    const stream = prettyStream({ write: (s: string) => (out += s) });
    const logger = createLogger({ level: "info", format: "pretty" }, stream);
    logger.info({ orderId: "o-1", apiKey: "not to be shown", note: "two words" }, "order placed");
    await new Promise<void>((resolve) => stream.end(resolve));
    expect(out).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} INFO {2}order placed orderId=o-1 apiKey=\[redacted\] note="two words"\n$/,
    );
    expect(out).not.toContain("not to be shown");
  });

  it("puts an error's message in the line and its stack below it", () => {
    const line = JSON.stringify({
      level: 50,
      time: "2026-11-27T12:04:05.120Z",
      msg: "failed",
      err: { message: "boom", stack: "Error: boom\n    at here" },
    });
    expect(prettyLine(line)).toBe("12:04:05.120 ERROR failed err=boom\n    Error: boom\n        at here");
  });

  it("passes a line that is not JSON on as it is", () => {
    expect(prettyLine("plain text")).toBe("plain text");
  });
});
