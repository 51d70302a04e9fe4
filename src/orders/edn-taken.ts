/** A document number an agent typed, already used by another order of the profile: found, and said so. */
import type { Queryable } from "../store/db.ts";
import { findOrdersByExternalDocumentNumber } from "../store/repositories/orders.ts";
import type { FieldErrors } from "./fields.ts";

export async function ednTaken(
  q: Queryable,
  profile: string,
  edn: string,
  exceptOrderId?: string,
): Promise<boolean> {
  const existing = await findOrdersByExternalDocumentNumber(q, edn);
  return existing.some((o) => o.profile === profile && o.id !== exceptOrderId);
}

export const ednTakenErrors = (edn: string): FieldErrors => ({
  externalDocumentNumber: [`${edn} is already used by another order; type another number or leave it empty.`],
});

/** Generated numbers skipped because agents typed them, before a submit gives up. */
export const MAX_TAKEN_NUMBERS = 100;

export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "23505";
}
