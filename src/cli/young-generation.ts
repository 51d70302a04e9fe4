/**
 * V8's young generation during `order-desk start`. V8 doubles the young generation whenever enough objects
 * survive its minor collections, on Node 24 up to twice Node 20's largest (64 MB against 32 MB, as
 * `v8.getHeapSpaceStatistics()` reports it), and gives nothing back while the process is quiet. Start-up (loading the bundle, opening PGlite, creating
 * the queues) is one burst of allocation that grew it to ≈ 19 MB resident, kept for the life of an idle process:
 * most of what Node 24 added to the embedded store's idle RSS (docs/node-versions.md).
 *
 * So the growth factor is 1 (no growth) from the command's start until the app is ready, and V8's default (2)
 * after, so the young generation still grows as it always did under sustained load. Keeping it at 1 for good
 * took a quarter of the ingest rate under load in `npm run bench -- footprint`; the heap flag that caps it
 * (`--max-semi-space-size`) is read only when the process starts, so it works on the command line but not from
 * here, and every way of starting Order Desk would need it. Measured in docs/benchmarks.md ("footprint,
 * embedded store"). (`setFlagsFromString` after start-up is outside what Node promises; V8 reads this flag each
 * time it considers growing, and the effect is measured there.)
 */
import v8 from "node:v8";

/** V8's default for `--semi-space-growth-factor` (Node 20 to 24). */
const V8_DEFAULT_GROWTH_FACTOR = 2;

export function holdYoungGeneration(): void {
  v8.setFlagsFromString("--semi-space-growth-factor=1");
}

export function releaseYoungGeneration(): void {
  v8.setFlagsFromString(`--semi-space-growth-factor=${V8_DEFAULT_GROWTH_FACTOR}`);
}
