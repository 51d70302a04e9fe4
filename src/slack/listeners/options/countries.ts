import type { AllMiddlewareArgs, SlackOptionsMiddlewareArgs } from "@slack/bolt";
import { COUNTRIES } from "../../../supplier/countries.ts";
import { countryOption } from "../../blocks/order-modal.ts";

const ENTRIES = Object.entries(COUNTRIES).map(([code, name]) => ({
  code,
  name,
  haystack: `${code} ${name}`
    .toLowerCase()
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, ""),
}));

/** Every ISO 3166-1 code is searchable by code ("DE") or name ("germ"); exact codes first. */
export function countries() {
  return async ({ ack, options }: SlackOptionsMiddlewareArgs<"block_suggestion"> & AllMiddlewareArgs) => {
    const query = (options.value ?? "")
      .trim()
      .toLowerCase()
      .normalize("NFD")
      .replace(/[\u0300-\u036f]/g, "");
    const exact = ENTRIES.filter((e) => e.code.toLowerCase() === query);
    const rest = ENTRIES.filter((e) => e.code.toLowerCase() !== query && e.haystack.includes(query));
    await ack({ options: [...exact, ...rest].slice(0, 100).map((e) => countryOption(e.code)) });
  };
}
