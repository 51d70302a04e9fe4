import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { DEFAULT_BOT_SCOPES, DEFAULT_FUNCTION_OUTPUTS } from "../../src/devtools/fake-slack/index.ts";

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
    slash_commands: Array<{ command: string; description: string; usage_hint?: string }>;
    shortcuts: Array<{ name: string; type: string; callback_id: string; description: string }>;
  };
  oauth_config: { scopes: { bot: string[] } };
  settings: {
    event_subscriptions: { bot_events: string[] };
    interactivity: { is_enabled: boolean };
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
      expect.objectContaining({ command: "/order", usage_hint: "[TICKET-123]" }),
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
      "profile",
      "channel",
    ]);
    expect(inputs.recipient?.type).toBe("slack#/types/user_id");
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
