/**
 * Registers every listener, by kind (bolt-ts-starter-template's layout): one handler per file, named after its
 * export, and an `index.ts` per kind. The workflow step registers through `createSlackApp({ register })`.
 */
import type { App } from "@slack/bolt";
import type { SlackContext } from "../context.ts";
import * as actions from "./actions/index.ts";
import * as commands from "./commands/index.ts";
import * as events from "./events/index.ts";
import * as options from "./options/index.ts";
import * as shortcuts from "./shortcuts/index.ts";
import * as views from "./views/index.ts";

export function registerListeners(app: App, ctx: SlackContext): void {
  commands.register(app, ctx);
  shortcuts.register(app, ctx);
  views.register(app, ctx);
  actions.register(app, ctx);
  options.register(app, ctx);
  events.register(app, ctx);
}
