/**
 * A loopback port free right now, for a server whose port must be known before it starts (Order Desk's in a world:
 * the sandbox that delivers webhooks to it starts first; a restart takes the same port again).
 *
 * Taken below the range the system hands out to outgoing connections. A port from that range (what `listen(0)`
 * gives) can be taken, between this check and the server's listen or while it restarts, by any connection made on
 * the machine (a database pool's, another test file's), and the listen then fails with EADDRINUSE (seen once in
 * twenty runs of the webhook test files three at a time, both cores busy). A port below the range is taken only by
 * a server that asks for it.
 */
import { randomInt } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer } from "node:net";

/** Below every default range of ephemeral ports: Linux 32768–60999; macOS, the BSDs and Windows 49152–65535. */
const BELOW_EPHEMERAL: readonly [number, number] = [10_000, 32_767];
const ATTEMPTS = 50;

/** Ports no outgoing connection is given here, or null when the system's range leaves none worth using. */
async function outsideEphemeralRange(): Promise<readonly [number, number] | null> {
  let text: string;
  try {
    text = await readFile("/proc/sys/net/ipv4/ip_local_port_range", "utf8");
  } catch {
    return BELOW_EPHEMERAL; // not Linux: the defaults above
  }
  const low = Number(text.trim().split(/\s+/)[0]);
  if (!Number.isInteger(low)) return BELOW_EPHEMERAL;
  return low - 1 >= BELOW_EPHEMERAL[0] + 1_000 ? [BELOW_EPHEMERAL[0], low - 1] : null;
}

/** Listens on `port` (0: any) on loopback and closes again; the port listened on, or null when it was taken. */
function probe(port: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE" || error.code === "EACCES") resolve(null);
      else reject(error);
    });
    server.listen(port, "127.0.0.1", () => {
      const { port: bound } = server.address() as { port: number };
      server.close(() => resolve(bound));
    });
  });
}

export async function freePort(): Promise<number> {
  const range = await outsideEphemeralRange();
  if (range) {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const port = await probe(randomInt(range[0], range[1] + 1));
      if (port !== null) return port;
    }
  }
  const any = await probe(0);
  if (any === null) throw new Error("no free port on 127.0.0.1");
  return any;
}
