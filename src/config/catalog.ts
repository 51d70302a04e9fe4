/**
 * Read-only lookups over a loaded customer file: profiles by channel, catalog search for the type-ahead, bundles.
 * Built once at start-up; every lookup is in memory (the modal's options handler must answer within 3 s).
 */
import type { Bundle, CatalogItem, CustomerConfig, Profile } from "./customer-schema.ts";

export interface Customer {
  readonly config: CustomerConfig;
  /**
   * Where the customer's days are: the file's `timeZone`, UTC when it has none. Every date Order Desk shows (the
   * order's message, its thread, App Home, `/order status`) is written in it.
   */
  readonly timeZone: string;
  readonly ticketIdPattern: RegExp;
  profile(name: string): Profile | undefined;
  /** Profiles that apply in this channel, in file order. */
  profilesForChannel(channelId: string): Profile[];
  item(itemNumber: string): CatalogItem | undefined;
  /** Items whose number, name, category or keywords contain every word of `query` (case-insensitive). */
  searchItems(query: string, limit?: number): CatalogItem[];
  /** A bundle by name, ignoring case and surrounding spaces. */
  bundle(name: string): Bundle | undefined;
}

function haystack(item: CatalogItem): string {
  return [item.itemNumber, item.name, item.category, ...item.keywords].join(" ").toLowerCase();
}

export function createCustomer(config: CustomerConfig): Customer {
  const ticketIdPattern = new RegExp(config.ticketIdPattern);
  const profiles = new Map(config.profiles.map((p) => [p.name, p]));
  const items = new Map(config.catalog.map((i) => [i.itemNumber, i]));
  const bundles = new Map(config.bundles.map((b) => [b.name.trim().toLowerCase(), b]));
  const searchable = config.catalog.map((item) => ({ item, text: haystack(item) }));
  const byChannel = new Map<string, Profile[]>();
  for (const profile of config.profiles) {
    for (const channel of profile.channels) {
      const list = byChannel.get(channel) ?? [];
      list.push(profile);
      byChannel.set(channel, list);
    }
  }

  return {
    config,
    timeZone: config.timeZone ?? "UTC",
    ticketIdPattern,
    profile: (name) => profiles.get(name),
    profilesForChannel: (channelId) => [...(byChannel.get(channelId) ?? [])],
    item: (itemNumber) => items.get(itemNumber),
    searchItems(query, limit = 100) {
      const words = query.toLowerCase().split(/\s+/).filter(Boolean);
      const out: CatalogItem[] = [];
      for (const { item, text } of searchable) {
        if (words.every((w) => text.includes(w))) out.push(item);
        if (out.length >= limit) break;
      }
      return out;
    },
    bundle: (name) => bundles.get(name.trim().toLowerCase()),
  };
}
