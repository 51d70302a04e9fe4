/** `GET /healthz`: how long the process takes to answer anything at all while it is under load. */
import type autocannon from "autocannon";

export default function healthzScenario(): autocannon.Request[] {
  return [{ method: "GET", path: "/healthz" }];
}
