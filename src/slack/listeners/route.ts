/**
 * Bolt runs the matchers of every registered listener for every request Slack sends, the modal's submits
 * included: each listener costs each request a middleware chain (measured with `npm run bench -- slack-ack`,
 * docs/benchmarks.md). So the handlers of one kind that differ only by id (the modal's buttons and menus, its
 * type-aheads) are registered as one Bolt listener that matches any of their ids and hands the request to the
 * handler of its id. Each handler still lives in its own file.
 */

/** A pattern matching exactly the given ids (Bolt's `action_id` constraint). */
export function anyOf(ids: Iterable<string>): RegExp {
  const alternatives = [...ids].map((id) => id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  if (alternatives.length === 0) throw new TypeError("anyOf needs at least one id");
  return new RegExp(`^(?:${alternatives.join("|")})$`);
}

/** One listener for `handlers`, keyed by id; `idOf` reads the id from the listener's arguments. */
export function routeById<A>(
  handlers: ReadonlyMap<string, (args: A) => Promise<void>>,
  idOf: (args: A) => string,
): (args: A) => Promise<void> {
  return async (args) => {
    // The Bolt constraint admitted only these ids, so a handler is always found.
    await handlers.get(idOf(args))?.(args);
  };
}
