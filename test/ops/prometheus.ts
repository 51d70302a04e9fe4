/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4), enough to prove `/metrics` output
 * parses: `# HELP name text`, `# TYPE name type`, and samples `name{label="value",...} value [timestamp]`;
 * empty lines are ignored, as the format allows. Throws on the first other line, naming it. Shared by the tests of the registry and of `/metrics`.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  /** Metric family → type (`counter`, `gauge`, `histogram`, `summary`, `untyped`). */
  types: Map<string, string>;
  help: Map<string, string>;
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\["\\\\n])*"';
// Prometheus reads values with Go's ParseFloat, which takes NaN and Inf in any case; prom-client writes "Nan"
// for a gauge not measured yet (the event-loop lag right after start).
const VALUE = "[-+]?(?:[0-9]*\\.?[0-9]+(?:[eE][-+]?[0-9]+)?|[Nn][Aa][Nn]|[Ii][Nn][Ff])";
const SAMPLE = new RegExp(
  `^(${NAME})(?:\\{((?:${LABEL})(?:,(?:${LABEL}))*,?)?\\})? (${VALUE})(?: -?[0-9]+)?$`,
);
const HELP = new RegExp(`^# HELP (${NAME}) (.*)$`);
const TYPE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const LABEL_PAIR = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\["\\n])*)"/g;

export function parsePrometheusText(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const help = new Map<string, string>();
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  lines.forEach((line, index) => {
    const where = `line ${index + 1}: ${JSON.stringify(line)}`;
    if (line.startsWith("#")) {
      const h = HELP.exec(line);
      const t = TYPE.exec(line);
      if (h) help.set(h[1]!, h[2]!);
      else if (t) {
        if (types.has(t[1]!)) throw new Error(`second TYPE for ${t[1]} at ${where}`);
        types.set(t[1]!, t[2]!);
      } else if (/^# (HELP|TYPE) /.test(line)) throw new Error(`malformed comment at ${where}`);
      return;
    }
    if (line === "") return;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a sample at ${where}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (m[2] ?? "").matchAll(LABEL_PAIR)) {
      if (key! in labels) throw new Error(`label ${key} repeated at ${where}`);
      labels[key!] = value!.replace(/\\n/g, "\n").replace(/\\"/g, '"').replace(/\\\\/g, "\\");
    }
    const raw = m[3]!;
    const value = /inf$/i.test(raw)
      ? raw.startsWith("-")
        ? -Infinity
        : Infinity
      : /nan$/i.test(raw)
        ? Number.NaN
        : Number(raw);
    samples.push({ name: m[1]!, labels, value });
  });
  return { samples, types, help };
}

/** The value of the one sample with this name and exactly these labels (undefined when absent). */
export function sampleValue(
  exposition: Exposition,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const want = JSON.stringify(Object.entries(labels).sort());
  return exposition.samples.find(
    (s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === want,
  )?.value;
}
