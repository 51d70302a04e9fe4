import * as chat from "./chat.ts";
import type { Handler } from "./context.ts";
import * as directory from "./directory.ts";
import { completeUploadExternal, getUploadURLExternal } from "./files.ts";
import { completeError, completeSuccess, type FunctionOutputs } from "./functions.ts";
import { conversationsHistory, conversationsReplies } from "./history.ts";
import * as views from "./views.ts";

/** The Web API methods the fake answers; any other name gets `unknown_method`, as on Slack. */
export function methodTable(functionOutputs: FunctionOutputs): Record<string, Handler> {
  return {
    "auth.test": directory.authTest,
    "chat.postMessage": chat.postMessage,
    "chat.update": chat.update,
    "chat.postEphemeral": chat.postEphemeral,
    "chat.getPermalink": chat.getPermalink,
    "views.open": views.open,
    "views.push": views.push,
    "views.update": views.update,
    "views.publish": views.publish,
    "conversations.info": directory.conversationsInfo,
    "conversations.join": directory.conversationsJoin,
    "conversations.open": directory.conversationsOpen,
    "conversations.members": directory.conversationsMembers,
    "conversations.replies": conversationsReplies,
    "conversations.history": conversationsHistory,
    "users.info": directory.usersInfo,
    "usergroups.users.list": directory.usergroupsUsersList,
    "functions.completeSuccess": completeSuccess(functionOutputs),
    "functions.completeError": completeError,
    "files.getUploadURLExternal": getUploadURLExternal,
    "files.completeUploadExternal": completeUploadExternal,
  };
}
