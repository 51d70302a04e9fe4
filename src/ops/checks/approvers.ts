/**
 * Approver groups: every user group a profile's `approval.approverGroups` names must exist in the workspace and
 * have members, or its orders wait for approvers nobody can reach (`usergroups.users.list`, as the app asks).
 */
import type { CustomerConfig } from "../../config/customer-schema.ts";
import { createSlackWebClient, silentSdkLogger, toSlackCallError } from "../../slack/outbound/index.ts";
import { type CheckOutcome, describeError, fail, ok, warn } from "../check.ts";

export interface ApproverGroupsCheckOptions {
  botToken: string;
  apiUrl?: string;
  timeoutMs: number;
}

/** Each approver group named in the customer file, with the profiles naming it. */
export function approverGroupsIn(config: Pick<CustomerConfig, "profiles">): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const profile of config.profiles) {
    for (const group of profile.approval?.approverGroups ?? []) {
      groups.set(group, [...(groups.get(group) ?? []), profile.name]);
    }
  }
  return groups;
}

export async function checkApproverGroups(
  config: Pick<CustomerConfig, "profiles">,
  options: ApproverGroupsCheckOptions,
): Promise<CheckOutcome> {
  // `background`: a failure (and a 429) is reported at once; the doctor reports, the SDK logs nothing.
  const client = createSlackWebClient({
    token: options.botToken,
    policy: "background",
    timeoutMs: options.timeoutMs,
    apiUrl: options.apiUrl,
    logger: silentSdkLogger,
  });
  const groups = approverGroupsIn(config);
  const missing: string[] = [];
  const empty: string[] = [];
  let members = 0;
  for (const [group, profiles] of groups) {
    const named = `${group} (approverGroups of ${profiles.map((p) => `"${p}"`).join(", ")})`;
    try {
      const result = await client.usergroups.users.list({ usergroup: group });
      const users = result.users ?? [];
      members += users.length;
      if (users.length === 0) empty.push(named);
    } catch (error) {
      const code = toSlackCallError("usergroups.users.list", error).slackError;
      if (code === "no_such_subteam" || code === "subteam_not_found") missing.push(named);
      else if (code === "missing_scope") {
        return warn(
          "cannot read user groups (missing_scope): add usergroups:read to the app and reinstall it",
        );
      } else return fail(`could not read user group ${group}: ${describeError(error)}`);
    }
  }
  if (missing.length > 0) {
    return fail(
      `no such user group in the workspace: ${missing.join("; ")}. Fix the id in order-desk.config.yml (Slack shows a group's id in its profile)`,
    );
  }
  if (empty.length > 0)
    return warn(`user groups without members, so nobody in them can approve: ${empty.join("; ")}`);
  return ok(`${groups.size} approver group(s) found, ${members} member(s) in all`);
}
