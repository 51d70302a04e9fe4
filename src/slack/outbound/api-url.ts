/**
 * `SLACK_API_URL` (the offline demo, tests, a proxy) is the Web API's base URL, to which the client appends the
 * method name: it must end in `/api/`. Without the trailing slash, or without `/api`, every call goes to a path
 * the server does not serve, and the first one, `auth.test`, answers 404.
 */

/** Why Slack's Web API answered 404, in words an operator can act on. */
export function slackApiNotFoundHint(apiUrl: string | undefined): string {
  if (!apiUrl) {
    return "Slack's Web API answered 404: a proxy between this host and slack.com is rewriting the requests";
  }
  const fixed = apiUrl.replace(/\/*$/, "").replace(/\/api$/, "");
  return (
    `SLACK_API_URL (${apiUrl}) answered 404: it must be the Web API's base URL and end in /api/, ` +
    `for example ${fixed}/api/`
  );
}
