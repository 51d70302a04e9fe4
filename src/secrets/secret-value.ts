/**
 * What a secret may hold: the key itself, or JSON `{"apiKey": "...", "expiresAt": "ISO date or date-time"}`.
 * Parsed once here; everything after works with a checked key. Nothing in this file echoes the secret's contents:
 * not in messages and not in `cause` (JSON.parse errors quote the input, so they are dropped).
 */
import { parseISO } from "date-fns/parseISO";
import { z } from "zod";
import { MalformedApiKeyError } from "../supplier/errors.ts";
import { type ParsedApiKey, parseApiKey } from "../supplier/keys.ts";
import { SecretMalformedError } from "./errors.ts";

export interface SecretPayload {
  value: string;
  parsed: ParsedApiKey;
  /** `expiresAt` from the JSON form; null when the secret does not say. */
  expiresAt: Date | null;
}

const jsonSecretSchema = z.object({
  apiKey: z.string(),
  expiresAt: z.union([z.iso.datetime({ offset: true }), z.iso.date()]).optional(),
});

const FORMAT_HINT =
  'Store either the key itself or JSON {"apiKey": "<svc>_live_<32 hex>", "expiresAt": "2027-06-30T00:00:00Z"} ' +
  "as the secret's SecretString (see docs/secrets.md).";

/**
 * @param secretString the SecretString, undefined when the secret holds SecretBinary
 * @param source how to name the secret in messages (its id, or the environment variable)
 */
export function parseSecretPayload(secretString: string | undefined, source: string): SecretPayload {
  if (secretString === undefined) {
    throw new SecretMalformedError(
      `Secret ${source} holds no SecretString (binary secrets are not supported). ${FORMAT_HINT}`,
      source,
    );
  }
  // Surrounding whitespace is never part of a key; a trailing newline from `--secret-string file://key.txt` is common.
  const text = secretString.trim();
  if (!text.startsWith("{")) return { ...checkKey(text, source), expiresAt: null };

  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SecretMalformedError(
      `Secret ${source} starts with "{" but is not valid JSON. ${FORMAT_HINT}`,
      source,
    );
  }
  const result = jsonSecretSchema.safeParse(json);
  if (!result.success) {
    const fields = json && typeof json === "object" ? Object.keys(json).slice(0, 10) : [];
    const problems = result.error.issues.map(
      (issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`,
    );
    throw new SecretMalformedError(
      `Secret ${source} is JSON but not the expected shape (${problems.join("; ")}; fields present: ${fields.join(", ") || "none"}). ${FORMAT_HINT}`,
      source,
    );
  }
  const { apiKey, expiresAt } = result.data;
  return {
    ...checkKey(apiKey.trim(), source),
    // A bare date means the start of that day where Order Desk runs, so it is shown back as the same date.
    expiresAt: expiresAt === undefined ? null : parseISO(expiresAt),
  };
}

function checkKey(value: string, source: string): { value: string; parsed: ParsedApiKey } {
  try {
    return { value, parsed: parseApiKey(value) };
  } catch (error) {
    if (!(error instanceof MalformedApiKeyError)) throw error;
    throw new SecretMalformedError(
      `Secret ${source} does not hold a valid supplier API key. ${error.message}`,
      source,
      {
        cause: error,
      },
    );
  }
}
