/**
 * The order modal's `private_metadata`: where the modal was opened (channel, the shortcut's message, the order
 * being fixed) and the keys of its order lines. It comes back in every payload of the view, so it is sealed:
 * `<mac>.<json>`, the MAC an HMAC-SHA256 over the user the modal was opened for and the JSON, keyed with a key
 * only the server holds (`createMetadataSeal`). A payload whose metadata was written or edited by anyone else,
 * or copied from another user's modal, is refused before it is read; then the JSON is parsed with zod. Who may
 * order is still checked on every submit: the seal proves where the modal came from, not who may use it.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";

/** Slack's limit on private_metadata. */
export const MAX_PRIVATE_METADATA = 3000;

const lineKey = z.string().regex(/^[a-z0-9]{1,6}$/);

export const modalMetadataSchema = z.object({
  v: z.literal(1),
  /** Channel the order's message goes to; absent when opened from App Home (the message then goes to a DM). */
  ch: z
    .string()
    .regex(/^[CGD][A-Z0-9]+$/)
    .optional(),
  /** The message shortcut's message ts: the order's message joins its thread. */
  th: z
    .string()
    .regex(/^\d+\.\d+$/)
    .optional(),
  src: z.enum(["command", "shortcut", "home"]),
  /** The only profile on offer (no profile select shown). */
  pf: z.string().max(75).optional(),
  /** Keys of the order lines, in order (block ids `line_<key>_…`). */
  lk: z.array(lineKey).max(500),
  /** Next line key. */
  nk: z.int().min(0),
  /** Order being fixed and resubmitted. */
  o: z.string().max(64).optional(),
  /** The late-delivery warning shown (its key): submitting the same again places the order at risk. */
  rw: z.string().max(200).optional(),
  /** The warning offered the express order type: the form shows its checkbox. */
  xo: z.boolean().optional(),
});

export type ModalMetadata = z.infer<typeof modalMetadataSchema>;

export class InvalidMetadataError extends Error {
  readonly code = "INVALID_PRIVATE_METADATA";
  constructor(readonly issues: string) {
    super(`The modal's private_metadata is not ours (${issues}); open the order form again.`);
    this.name = "InvalidMetadataError";
  }
}

/** The JSON of the metadata (unsealed: `MetadataSeal.seal` makes it what a view carries). */
export function encodeMetadata(meta: ModalMetadata): string {
  const text = JSON.stringify(meta);
  if (text.length > MAX_PRIVATE_METADATA) {
    throw new RangeError(
      `private_metadata would be ${text.length} characters; Slack allows ${MAX_PRIVATE_METADATA}`,
    );
  }
  return text;
}

export function decodeMetadata(text: string | undefined): ModalMetadata {
  let json: unknown;
  try {
    json = JSON.parse(text ?? "");
  } catch {
    throw new InvalidMetadataError("not JSON");
  }
  const parsed = modalMetadataSchema.safeParse(json);
  if (!parsed.success)
    throw new InvalidMetadataError(parsed.error.issues.map((i) => i.path.join(".")).join(", "));
  return parsed.data;
}

/** A fresh key for a new line. */
export function takeLineKey(meta: ModalMetadata): { key: string; meta: ModalMetadata } {
  const key = meta.nk.toString(36);
  return { key, meta: { ...meta, lk: [...meta.lk, key], nk: meta.nk + 1 } };
}

/** Seals and opens the modal's metadata; one per app, keyed from a secret every replica shares. */
export interface MetadataSeal {
  /** `json` (from `encodeMetadata`) bound to the user the modal is opened for: what goes into `private_metadata`. */
  seal(json: string, userId: string): string;
  /** The metadata, when `text` was sealed by us for this user; throws `InvalidMetadataError` otherwise. */
  open(text: string | undefined, userId: string): ModalMetadata;
}

/** base64url of a SHA-256 MAC. */
const MAC_LENGTH = 43;

/**
 * `secret`: a value only the server holds and every replica shares (the bot token). A key of its own is derived
 * from it, so the MAC never reveals anything about the secret itself. A new secret (the app reinstalled) makes
 * open modals fail with "open the order form again".
 */
export function createMetadataSeal(secret: string): MetadataSeal {
  if (secret === "") throw new TypeError("the private_metadata key needs a non-empty secret");
  const key = createHmac("sha256", secret).update("order-desk private_metadata v1").digest();
  const mac = (json: string, userId: string) =>
    createHmac("sha256", key).update(userId).update("\n").update(json).digest("base64url");
  return {
    seal(json, userId) {
      const text = `${mac(json, userId)}.${json}`;
      if (text.length > MAX_PRIVATE_METADATA) {
        throw new RangeError(
          `private_metadata would be ${text.length} characters; Slack allows ${MAX_PRIVATE_METADATA}`,
        );
      }
      return text;
    },
    open(text, userId) {
      const raw = text ?? "";
      const given = Buffer.from(raw.slice(0, MAC_LENGTH));
      const json = raw.slice(MAC_LENGTH + 1);
      const expected = Buffer.from(mac(json, userId));
      if (
        raw.charAt(MAC_LENGTH) !== "." ||
        given.length !== expected.length ||
        !timingSafeEqual(given, expected)
      ) {
        throw new InvalidMetadataError("not sealed by Order Desk for this user");
      }
      return decodeMetadata(json);
    },
  };
}
