/**
 * `LOG_FORMAT=pretty`: the JSON lines the logger writes, as one short line each for a person at a terminal
 * (`12:04:05.120 INFO  Order Desk is running url=… store=pglite`). It reads the lines after redaction, so it
 * shows nothing the JSON would not. Dashboards and log shippers keep the default JSON.
 */
import { Writable } from "node:stream";

const LEVELS: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO ",
  40: "WARN ",
  50: "ERROR",
  60: "FATAL",
};
/** Fields every line has, shown in the line's head or not at all. */
const HEAD = new Set(["level", "time", "msg", "pid", "hostname", "name"]);

function value(v: unknown): string {
  if (typeof v === "string") return /[\s"=]/.test(v) ? JSON.stringify(v) : v;
  return JSON.stringify(v);
}

/** One JSON log line as a person reads it; a line that is not JSON is passed on as it is. */
export function prettyLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = typeof entry.time === "string" ? entry.time.slice(11, 23) : "";
  const level = LEVELS[entry.level as number] ?? String(entry.level);
  const fields: string[] = [];
  let stack: string | null = null;
  for (const [key, v] of Object.entries(entry)) {
    if (HEAD.has(key)) continue;
    if (key === "err" && v && typeof v === "object") {
      const err = v as { message?: unknown; stack?: unknown };
      fields.push(`err=${value(err.message ?? "")}`);
      if (typeof err.stack === "string") stack = err.stack;
      continue;
    }
    fields.push(`${key}=${value(v)}`);
  }
  const head = `${time} ${level} ${typeof entry.msg === "string" ? entry.msg : ""}`;
  return `${[head, ...fields].join(" ")}${stack ? `\n    ${stack.split("\n").join("\n    ")}` : ""}`;
}

/** A destination for pino that writes each line pretty to `out`. */
export function prettyStream(out: { write(chunk: string): unknown }): Writable {
  let rest = "";
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      const lines = (rest + chunk.toString()).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) if (line) out.write(`${prettyLine(line)}\n`);
      done();
    },
    final(done) {
      if (rest) out.write(`${prettyLine(rest)}\n`);
      done();
    },
  });
}
