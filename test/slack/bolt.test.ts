/**
 * src/slack/bolt.ts takes Bolt's parts from Bolt's own modules (so that Express stays out of the start bundle): they
 * must be the very values Bolt's index exports, here and in plain Node, whose default import of CommonJS differs
 * from vitest's.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import * as bolt from "@slack/bolt";
import { describe, expect, it } from "vitest";
import * as ours from "../../src/slack/bolt.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

describe("Bolt's parts, from its own modules", () => {
  it("are the values Bolt's index exports", () => {
    expect(ours.BoltApp).toBe(bolt.App);
    expect(ours.SocketModeReceiver).toBe(bolt.SocketModeReceiver);
    expect(ours.HTTPResponseAck).toBe(bolt.HTTPResponseAck);
    expect(ours.defaultProcessEventErrorHandler).toBe(bolt.defaultProcessEventErrorHandler);
    expect(ours.HTTPModuleFunctions.parseHTTPRequestBody).toBe(bolt.HTTPModuleFunctions.parseHTTPRequestBody);
  });

  it("are the same in plain Node (through tsx), where a default import of CommonJS is `module.exports`", () => {
    const script = `
      const ours = await import("./src/slack/bolt.ts");
      const bolt = await import("@slack/bolt");
      console.log(JSON.stringify([ours.BoltApp === bolt.App, ours.SocketModeReceiver === bolt.SocketModeReceiver]));`;
    const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: ROOT,
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual([true, true]);
  });
});
