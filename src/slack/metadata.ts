/**
 * The order modal's `private_metadata`: where the modal was opened (channel, the shortcut's message) and the
 * keys of its order lines. It comes back from Slack in every payload of the view, so it is parsed with zod on the
 * way in and never trusted for anything that grants access: authorization and the profile's channels are
 * checked again on submit.
 */
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
});

export type ModalMetadata = z.infer<typeof modalMetadataSchema>;

export class InvalidMetadataError extends Error {
  readonly code = "INVALID_PRIVATE_METADATA";
  constructor(readonly issues: string) {
    super(`The modal's private_metadata is not ours (${issues}); open the order form again.`);
    this.name = "InvalidMetadataError";
  }
}

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
