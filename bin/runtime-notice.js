#!/usr/bin/env node
// Run by `npm install`/`npm ci` (the `prepare` script). Order Desk needs Node 22.19 or newer, and npm warns
// (EBADENGINE) about it and about every dependency that needs it when npm itself runs on an older Node. In a
// checkout that is harmless: the `node` development dependency puts Node 24 in node_modules/.bin, which npm puts
// first on PATH for `npm run …`, `npm test` and `npx …`. This says so, once, after the warnings, with what to do
// for anything run outside npm.
const MINIMUM = [22, 19];

const agent = process.env.npm_config_user_agent ?? "";
const npmNode = /\bnode\/v(\d+)\.(\d+)\.\d+/.exec(agent);
if (npmNode) {
  const [major, minor] = [Number(npmNode[1]), Number(npmNode[2])];
  const tooOld = major < MINIMUM[0] || (major === MINIMUM[0] && minor < MINIMUM[1]);
  if (tooOld) {
    const scripts =
      Number(process.versions.node.split(".")[0]) >= MINIMUM[0] ? `v${process.versions.node}` : null;
    const lines = [
      `order-desk: npm runs on Node v${npmNode[1]}.${npmNode[2]} here; Order Desk needs ${MINIMUM.join(".")} or newer, hence the EBADENGINE warnings above.`,
      scripts
        ? `  Nothing to do for \`npm run demo\`, \`npm test\`, \`npm run …\` and \`npx …\`: they run on Node ${scripts} from node_modules/.bin (the \`node\` development dependency).`
        : "  The `node` development dependency is not installed (a production install, or install scripts ignored): install Node 24 LTS (or 22.19+) before running Order Desk.",
      "  To run `bin/order-desk.js` or `node …` outside npm, install Node 24 LTS (or 22.19+). See docs/node-versions.md.",
    ];
    console.warn(lines.join("\n"));
  }
}
