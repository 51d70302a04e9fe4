import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { DEFAULT_BOT_SCOPES, DEFAULT_FUNCTION_OUTPUTS } from "../../tools/fake-slack/index.ts";

interface Param {
  type: string;
  title?: string;
  description?: string;
}
interface Manifest {
  _metadata: { major_version: number };
  display_information: { name: string; description: string; long_description?: string };
  features: {
    app_home: { home_tab_enabled: boolean; messages_tab_enabled: boolean };
    bot_user: { display_name: string };
    slash_commands: Array<{ command: string; description: string; usage_hint?: string; url?: string }>;
    shortcuts: Array<{ name: string; type: string; callback_id: string; description: string }>;
  };
  oauth_config: { scopes: { bot: string[] } };
  settings: {
    event_subscriptions: { bot_events: string[]; request_url?: string };
    interactivity: { is_enabled: boolean; request_url?: string; message_menu_options_url?: string };
    org_deploy_enabled: boolean;
    socket_mode_enabled: boolean;
    function_runtime: string;
  };
  functions: Record<
    string,
    {
      title: string;
      description: string;
      input_parameters: { properties: Record<string, Param>; required: string[] };
      output_parameters: { properties: Record<string, Param>; required: string[] };
    }
  >;
}

const manifest = parse(readFileSync(new URL("../../manifest.yml", import.meta.url), "utf8")) as Manifest;

describe("manifest.yml", () => {
  it("declares the /order command, the message shortcut, the Home tab and Socket Mode", () => {
    expect(manifest._metadata.major_version).toBe(2);
    expect(manifest.features.slash_commands).toEqual([
      expect.objectContaining({
        command: "/order",
        usage_hint: "[TICKET-123] | status TICKET-123 | export [YYYY-MM] | help",
      }),
    ]);
    expect(manifest.features.shortcuts).toEqual([
      expect.objectContaining({
        name: "Order equipment",
        type: "message",
        callback_id: "order_from_message",
      }),
    ]);
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.settings.socket_mode_enabled).toBe(true);
  });

  it("has an HTTP-mode twin, manifest.http.yml, that differs only in Socket Mode and the request URLs", () => {
    const http = parse(readFileSync(new URL("../../manifest.http.yml", import.meta.url), "utf8")) as Manifest;
    const url = "https://orders.example.com/slack/events";
    const { slash_commands: commands, ...features } = http.features as Manifest["features"] & {
      slash_commands: Array<Record<string, unknown>>;
    };
    expect(commands.map(({ url: commandUrl, ...rest }) => [commandUrl, rest])).toEqual(
      manifest.features.slash_commands.map((command) => [url, command]),
    );
    const { slash_commands: _, ...socketFeatures } = manifest.features;
    expect(features).toEqual(socketFeatures);
    const settings = http.settings as unknown as Record<string, Record<string, unknown>>;
    expect(settings.event_subscriptions?.request_url).toBe(url);
    expect(settings.interactivity).toMatchObject({ request_url: url, message_menu_options_url: url });
    expect(http.settings.socket_mode_enabled).toBe(false);
    const strip = (m: Manifest) => {
      const { features: _f, settings, ...rest } = m;
      const {
        event_subscriptions,
        interactivity,
        socket_mode_enabled: _s,
        ...other
      } = settings as unknown as Record<string, Record<string, unknown>>;
      const { request_url: _r, ...events } = event_subscriptions ?? {};
      const { request_url: _i, message_menu_options_url: _m, ...interact } = interactivity ?? {};
      return { ...rest, settings: { ...other, events, interact } };
    };
    expect(strip(http)).toEqual(strip(manifest));
  });

  it("asks for exactly the scopes the fake Slack grants by default, and not chat:write.public", () => {
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual([...DEFAULT_BOT_SCOPES].sort());
    expect(manifest.oauth_config.scopes.bot).not.toContain("chat:write.public");
  });

  it("has the settings Slack requires for a custom workflow step", () => {
    expect(manifest.settings.function_runtime).toBe("remote");
    expect(manifest.settings.org_deploy_enabled).toBe(true);
    expect(manifest.settings.event_subscriptions.bot_events).toContain("function_executed");
  });

  it("defines place_order with every input a workflow author fills in, each titled and described", () => {
    const fn = manifest.functions.place_order!;
    const inputs = fn.input_parameters.properties;
    expect(Object.keys(inputs)).toEqual([
      "ticket_id",
      "recipient",
      "requested_by",
      "first_name",
      "last_name",
      "email",
      "phone",
      "delivery_at",
      "company",
      "attention",
      "address1",
      "address2",
      "city",
      "zip",
      "state",
      "country",
      "items",
      "needed_by",
      "profile",
      "channel",
    ]);
    expect(inputs.recipient?.type).toBe("slack#/types/user_id");
    expect(inputs.requested_by?.type).toBe("slack#/types/user_id");
    expect(inputs.channel?.type).toBe("slack#/types/channel_id");
    for (const [name, p] of Object.entries({ ...inputs, ...fn.output_parameters.properties })) {
      expect(p.title, `${name} needs a title`).toBeTruthy();
      expect(p.description, `${name} needs a description`).toBeTruthy();
    }
    for (const name of fn.input_parameters.required) expect(inputs).toHaveProperty(name);
    expect(fn.input_parameters.required).not.toContain("recipient");
    expect(fn.input_parameters.required).not.toContain("profile");
  });

  it("declares the outputs the fake Slack requires on functions.completeSuccess", () => {
    const outputs = manifest.functions.place_order!.output_parameters;
    expect(Object.keys(outputs.properties)).toEqual([
      "correlation_id",
      "external_document_number",
      "order_message_link",
    ]);
    expect(outputs.required).toEqual(DEFAULT_FUNCTION_OUTPUTS.place_order?.required);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Only the scopes used: every declared bot scope must be needed by something the code in src/ does, and every
// Web API method the code calls must be covered by a declared scope. The tables are Slack's documentation
// (https://api.slack.com/methods), for the methods Order Desk calls or might; a new method fails the test until
// it is added here, with its scopes.

const root = fileURLToPath(new URL("../../", import.meta.url));

/** Bot-token scopes each Web API method needs (any one of them); [] = none. */
const METHOD_SCOPES: Record<string, readonly string[]> = {
  "auth.test": [],
  "chat.postMessage": ["chat:write"],
  "chat.update": ["chat:write"],
  "chat.postEphemeral": ["chat:write"],
  "chat.getPermalink": [],
  "views.open": [],
  "views.push": [],
  "views.update": [],
  "views.publish": [],
  "functions.completeSuccess": [],
  "functions.completeError": [],
  "conversations.info": ["channels:read", "groups:read", "im:read", "mpim:read"],
  "conversations.members": ["channels:read", "groups:read", "im:read", "mpim:read"],
  "conversations.history": ["channels:history", "groups:history", "im:history", "mpim:history"],
  "conversations.replies": ["channels:history", "groups:history", "im:history", "mpim:history"],
  "conversations.join": ["channels:join"],
  "conversations.open": ["im:write"],
  "usergroups.users.list": ["usergroups:read"],
  "users.info": ["users:read"],
  "users.list": ["users:read"],
  "users.profile.get": ["users.profile:read"],
  "users.lookupByEmail": ["users:read.email"],
  "files.getUploadURLExternal": ["files:write"],
  "files.completeUploadExternal": ["files:write"],
};

/**
 * Why each scope may be declared: the Web API methods that need it (one must be called somewhere in src/), or,
 * for `commands`, the Bolt listeners that receive what it enables.
 */
const SCOPE_USES: Record<string, { methods?: readonly string[]; listeners?: readonly RegExp[] }> = {
  commands: { listeners: [/\bapp\.command\(/, /\bapp\.shortcut\(/] },
  "chat:write": { methods: ["chat.postMessage", "chat.update", "chat.postEphemeral"] },
  "usergroups:read": { methods: ["usergroups.users.list"] },
  "channels:read": { methods: ["conversations.info", "conversations.members"] },
  "groups:read": { methods: ["conversations.info", "conversations.members"] },
  "im:read": { methods: ["conversations.info"] },
  "channels:history": { methods: ["conversations.history", "conversations.replies"] },
  "groups:history": { methods: ["conversations.history", "conversations.replies"] },
  "im:history": { methods: ["conversations.history", "conversations.replies"] },
  "channels:join": { methods: ["conversations.join"] },
  "im:write": { methods: ["conversations.open"] },
  "users:read": { methods: ["users.info", "users.list"] },
  "users:read.email": { methods: ["users.lookupByEmail"] },
  "users.profile:read": { methods: ["users.profile.get"] },
  "files:write": { methods: ["files.getUploadURLExternal", "files.completeUploadExternal"] },
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The app's code: src/ (the fake Slack, which implements every method as Slack would, lives in tools/). */
const appSources = sourceFiles(join(root, "src")).map((file) => ({
  file: relative(root, file),
  text: readFileSync(file, "utf8"),
}));

/** `client.chat.postMessage(`, `client.usergroups.users.list(`, `client.apiCall("users.info"`. */
const CALL =
  /\bclient\s*\.\s*((?:auth|chat|conversations|functions|usergroups|users|views|reactions|files|team|bots|apps)(?:\.[a-zA-Z]+)+)\s*\(|\bapiCall\(\s*["'`]([a-z]+\.[a-zA-Z.]+)["'`]/g;

function calledMethods(): Map<string, string[]> {
  const calls = new Map<string, string[]>();
  for (const { file, text } of appSources) {
    for (const match of text.matchAll(CALL)) {
      const method = match[1] ?? match[2];
      if (!method) continue;
      calls.set(method, [...(calls.get(method) ?? []), file]);
    }
  }
  return calls;
}

describe("manifest.yml asks for only the scopes Order Desk uses", () => {
  const declared = manifest.oauth_config.scopes.bot;
  const called = calledMethods();

  it("finds the Web API calls it checks (the grep still matches the code)", () => {
    // A sanity floor: if these disappear, the call pattern no longer matches how the code calls Slack.
    for (const method of [
      "chat.postMessage",
      "chat.update",
      "views.open",
      "views.publish",
      "conversations.info",
    ]) {
      expect(called.has(method), `no call of ${method} found in src/`).toBe(true);
    }
  });

  it("maps every declared bot scope to a Web API method (or listener) the code in src/ actually uses", () => {
    const unused: string[] = [];
    for (const scope of declared) {
      const uses = SCOPE_USES[scope];
      expect(uses, `${scope}: add it to SCOPE_USES with the methods that need it`).toBeDefined();
      const byMethod = (uses?.methods ?? []).some((m) => called.has(m));
      const byListener = (uses?.listeners ?? []).some((re) => appSources.some(({ text }) => re.test(text)));
      if (!byMethod && !byListener) unused.push(scope);
    }
    expect(unused, "declared in manifest.yml but needed by nothing in src/: remove them").toEqual([]);
  });

  it("declares a scope for every Web API method the code calls", () => {
    const missing: string[] = [];
    for (const [method, files] of called) {
      const needs = METHOD_SCOPES[method];
      expect(needs, `${method} (called in ${files.join(", ")}): add it to METHOD_SCOPES`).toBeDefined();
      if (needs && needs.length > 0 && !needs.some((scope) => declared.includes(scope))) {
        missing.push(`${method} needs one of ${needs.join(", ")}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("does not ask for users:read: people are shown as mentions, never looked up", () => {
    expect(declared).not.toContain("users:read");
    expect([...called.keys()].filter((m) => m.startsWith("users."))).toEqual([]);
  });
});

describe("docs/slack-setup.md", () => {
  const doc = readFileSync(new URL("../../docs/slack-setup.md", import.meta.url), "utf8");

  it("explains exactly the manifest's bot scopes", () => {
    const section = doc.slice(doc.indexOf("## 4. What each scope is for"), doc.indexOf("## 5."));
    const rows = section.split("\n").filter((line) => line.startsWith("| `"));
    const documented = rows.flatMap((row) =>
      [...(row.split("|")[1] ?? "").matchAll(/`([a-z.:]+)`/g)].map((m) => m[1]),
    );
    expect([...documented].sort()).toEqual([...manifest.oauth_config.scopes.bot].sort());
  });

  it("points HTTP mode at manifest.http.yml, which sends commands, events, interactions and select options to /slack/events", () => {
    const section = doc.slice(doc.indexOf("## 5. HTTP mode"), doc.indexOf("## 6."));
    expect(section).toContain("manifest.http.yml");
    const http = parse(readFileSync(new URL("../../manifest.http.yml", import.meta.url), "utf8")) as Manifest;
    const url = http.settings.event_subscriptions.request_url;
    expect(url).toMatch(/^https:\/\/[^/]+\/slack\/events$/);
    expect(http.settings.interactivity.request_url).toBe(url);
    // The item and country pickers are external_select: Slack loads their options from this URL.
    expect(http.settings.interactivity.message_menu_options_url).toBe(url);
    expect(http.features.slash_commands.map((c) => [c.command, c.url])).toEqual(
      manifest.features.slash_commands.map((c) => [c.command, url]),
    );
    expect([...http.settings.event_subscriptions.bot_events].sort()).toEqual(
      [...manifest.settings.event_subscriptions.bot_events].sort(),
    );
    expect(http.settings.socket_mode_enabled).toBe(false);
  });
});
