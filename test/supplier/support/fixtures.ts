/** Well-formed supplier API keys of both environments (the request they go with: tools/example-order.ts). */
export const TEST_KEY = "ods_test_0123456789abcdef0123456789abcdef";
export const LIVE_KEY = `ods_live_${"fedcba9876543210".repeat(2)}`;
