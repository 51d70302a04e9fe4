/**
 * A client that sends a whole request before it reads the answer, with `Connection: close`, as many HTTP client
 * libraries do: a server that closes while such a client is still sending makes it fail (reset, broken pipe)
 * without ever reading the answer.
 */
import { connect } from "node:net";

export async function sendWholeThenRead(
  baseUrl: string,
  request: { method?: string; path: string; headers?: Record<string, string>; body: Buffer },
): Promise<{ status: number; head: string }> {
  const url = new URL(baseUrl);
  const socket = connect(Number(url.port), url.hostname);
  const received: Buffer[] = [];
  socket.on("data", (d: Buffer) => received.push(d));
  const closed = new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.once("close", () => resolve());
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  const head = [
    `${request.method ?? "POST"} ${request.path} HTTP/1.1`,
    `host: ${url.host}`,
    "connection: close",
    `content-length: ${request.body.length}`,
    ...Object.entries(request.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    "",
    "",
  ].join("\r\n");
  await new Promise<void>((resolve, reject) =>
    socket.write(Buffer.concat([Buffer.from(head), request.body]), (error) =>
      error ? reject(error) : resolve(),
    ),
  );
  await closed;
  const text = Buffer.concat(received).toString("latin1");
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  return { status, head: text.slice(0, text.indexOf("\r\n\r\n")) };
}
