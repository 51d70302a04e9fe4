import { describe, expect, it } from "vitest";
import { ChannelPacer } from "../../src/orders/updates/pacer.ts";
import { foldTracking, readTracking, type TrackingInfo } from "../../src/orders/updates/tracking.ts";
import { trackingLinks } from "../../src/slack/blocks/order-message.ts";
import { isLinkable, shown, slackLink } from "../../src/slack/blocks/text.ts";
import { formatEstimatedDelivery, formatInstant } from "../../src/slack/blocks/updates/format.ts";
import { renderOrderReply } from "../../src/slack/blocks/updates/order-reply.ts";
import { renderEventReply } from "../../src/slack/blocks/updates/replies.ts";
import { validOrder } from "../../tools/example-order.ts";
import { validateBlocks } from "../../tools/fake-slack/index.ts";

const now = new Date("2026-11-24T10:00:00Z"); // a Tuesday

describe("estimated delivery in words", () => {
  it.each([
    ["2026-11-26", "arrives Thu 26 Nov, in 2 days"],
    ["2026-11-24", "arrives Tue 24 Nov, today"],
    ["2026-11-25", "arrives Wed 25 Nov, tomorrow"],
    ["2026-11-23", "was due Mon 23 Nov, yesterday"],
    ["2026-11-20", "was due Fri 20 Nov, 4 days ago"],
    ["2027-01-05", "arrives Tue 5 Jan 2027, in 42 days"],
  ])("%s → %s (UTC)", (date, words) => {
    expect(formatEstimatedDelivery(date, { now, timeZone: "UTC" })).toBe(words);
  });

  it("counts days from today in the configured time zone", () => {
    // 23:30 UTC on the 24th is already the 25th in Tokyo and still the 24th in New York.
    const lateEvening = new Date("2026-11-24T23:30:00Z");
    expect(formatEstimatedDelivery("2026-11-26", { now: lateEvening, timeZone: "Asia/Tokyo" })).toBe(
      "arrives Thu 26 Nov, tomorrow",
    );
    expect(formatEstimatedDelivery("2026-11-26", { now: lateEvening, timeZone: "America/New_York" })).toBe(
      "arrives Thu 26 Nov, in 2 days",
    );
  });

  it("counts calendar days across a daylight-saving change", () => {
    // Europe/Amsterdam leaves summer time on 25 Oct 2026.
    const saturday = new Date("2026-10-24T12:00:00Z");
    expect(formatEstimatedDelivery("2026-10-26", { now: saturday, timeZone: "Europe/Amsterdam" })).toBe(
      "arrives Mon 26 Oct, in 2 days",
    );
  });

  it("refuses what is not a calendar date", () => {
    expect(formatEstimatedDelivery("26/11/2026", { now, timeZone: "UTC" })).toBeNull();
    expect(formatEstimatedDelivery("2026-02-30", { now, timeZone: "UTC" })).toBeNull();
  });

  it("formats instants in the zone, with the year only when it is not this one", () => {
    expect(formatInstant(new Date("2026-11-24T14:02:00Z"), { now, timeZone: "UTC" })).toBe(
      "Tue 24 Nov 14:02 UTC",
    );
    // 31 Dec 2025 23:30 UTC is already 1 Jan 2026 in Berlin: this year, so no year shown.
    expect(formatInstant(new Date("2025-12-31T23:30:00Z"), { now, timeZone: "Europe/Berlin" })).toMatch(
      /^Thu 1 Jan 00:30 (CET|GMT\+1)$/,
    );
    expect(formatInstant(new Date("2025-06-01T08:00:00Z"), { now, timeZone: "UTC" })).toBe(
      "Sun 1 Jun 2025 08:00 UTC",
    );
  });
});

describe("update replies", () => {
  const base = { id: "evt_1", occurredAt: new Date("2026-11-24T09:00:00Z") };

  it("renders every kind of event as blocks Slack accepts, escaping what the supplier sent", () => {
    const events = [
      {
        ...base,
        type: "order.status_changed",
        payload: {
          id: "evt_1",
          type: "order.status_changed",
          occurredAt: "2026-11-24T09:00:00Z",
          correlationId: "0b6f6a4e-8f5c-4a53-9d1e-1a2b3c4d5e6f",
          data: { status: "cancelled", previousStatus: "packed", reason: "Out of stock <b>&</b>" },
        },
      },
      {
        ...base,
        type: "order.shipping_updated",
        payload: {
          id: "evt_1",
          type: "order.shipping_updated",
          occurredAt: "2026-11-24T09:00:00Z",
          correlationId: "0b6f6a4e-8f5c-4a53-9d1e-1a2b3c4d5e6f",
          data: {
            parcel: { number: 2, of: 3 },
            carrier: "UPS",
            trackingNumber: "1Z999",
            trackingUrl: "https://ups.example.com/1Z999",
            status: "out_for_delivery",
            estimatedDelivery: "2026-11-24",
            lines: Array.from({ length: 30 }, (_, i) => ({ itemNumber: `ITEM-${i}`, quantity: i + 1 })),
          },
        },
      },
      {
        ...base,
        type: "order.something_new",
        payload: {
          id: "evt_1",
          type: "order.something_new",
          occurredAt: "2026-11-24T09:00:00Z",
          correlationId: "0b6f6a4e-8f5c-4a53-9d1e-1a2b3c4d5e6f",
          data: { blob: "y".repeat(10_000) },
        },
      },
    ];
    for (const event of events) {
      const rendered = renderEventReply(event, { now, timeZone: "UTC", late: true });
      expect(validateBlocks(rendered.blocks, "message", "/blocks")).toEqual([]);
      expect(rendered.text.length).toBeGreaterThan(0);
    }
    const cancelled = renderEventReply(events[0]!, { now });
    expect(JSON.stringify(cancelled.blocks)).toContain("Out of stock &lt;b&gt;&amp;&lt;/b&gt;");
    // The notification text is mrkdwn too: escaped like the blocks.
    expect(cancelled.text).toBe("Status: Cancelled (was Packed) — Out of stock &lt;b&gt;&amp;&lt;/b&gt;");
    const shipping = JSON.stringify(renderEventReply(events[1]!, { now }).blocks);
    expect(shipping).toContain("Parcel 2 of 3");
    expect(shipping).toContain("arrives Tue 24 Nov, today");
    expect(shipping).toContain("and 10 more lines");
  });

  it("says the order is placed with the supplier's correlation id, and names the ticket and order number first in the fallback text", () => {
    const correlationId = "0b6f6a4e-8f5c-4a53-9d1e-1a2b3c4d5e6f";
    const order = {
      customerReference: "HD-1042",
      externalDocumentNumber: "HD-1042-1",
      request: validOrder(),
    };
    const placed = renderOrderReply(
      {
        ...base,
        type: "order.status_changed",
        payload: {
          id: "evt_1",
          type: "order.status_changed",
          occurredAt: "2026-11-24T09:00:00Z",
          correlationId,
          data: { status: "received" },
        },
      },
      order,
      { now },
    );
    expect(placed.text).toBe(
      `HD-1042 · order HD-1042-1: Placed with the supplier (correlation id ${correlationId})`,
    );
    expect(JSON.stringify(placed.blocks)).toContain(`*Placed with the supplier* · correlation id \``);
    expect(JSON.stringify(placed.blocks)).toContain(correlationId);
  });

  it("shows an office for a delivery to the office and a home for one to a home", () => {
    const delivered = {
      ...base,
      type: "order.shipping_updated",
      payload: {
        id: "evt_1",
        type: "order.shipping_updated",
        occurredAt: "2026-11-24T09:00:00Z",
        correlationId: "0b6f6a4e-8f5c-4a53-9d1e-1a2b3c4d5e6f",
        data: {
          parcel: { number: 1, of: 1 },
          carrier: "DHL",
          trackingNumber: "1Z9",
          trackingUrl: "https://dhl.example.com/1Z9",
          status: "delivered",
          lines: [],
        },
      },
    };
    const order = (deliveryAt: "Office" | "Home") => ({
      customerReference: "HD-1",
      externalDocumentNumber: "HD-1-1",
      request: validOrder({ shipping: { ...validOrder().shipping, deliveryAt } }),
    });
    const office = JSON.stringify(renderOrderReply(delivered, order("Office"), { now }).blocks);
    const home = JSON.stringify(renderOrderReply(delivered, order("Home"), { now }).blocks);
    expect(office).toContain(":office: *Parcel* delivered");
    expect(office).not.toContain(":house_with_garden:");
    expect(home).toContain(":house_with_garden: *Parcel* delivered");
  });

  it("renders a shipping update without a tracking URL or lines, and a placement named by document number only", () => {
    const shipping = renderEventReply(
      {
        ...base,
        type: "order.shipping_updated",
        payload: {
          id: "evt_1",
          type: "order.shipping_updated",
          occurredAt: "2026-11-24T09:00:00Z",
          externalDocumentNumber: "HD-1-1",
          data: { parcel: { number: 1, of: 1 }, carrier: "DHL", trackingNumber: "JD0146", status: "shipped" },
        },
      },
      { now },
    );
    expect(validateBlocks(shipping.blocks, "message", "/blocks")).toEqual([]);
    const blocks = JSON.stringify(shipping.blocks);
    expect(blocks).toContain("*Tracking*\\nJD0146");
    expect(blocks).not.toContain("In this parcel");
    const placed = renderOrderReply(
      {
        ...base,
        type: "order.status_changed",
        payload: {
          id: "evt_1",
          type: "order.status_changed",
          occurredAt: "2026-11-24T09:00:00Z",
          externalDocumentNumber: "HD-1-1",
          data: { status: "received" },
        },
      },
      { customerReference: "HD-1", externalDocumentNumber: "HD-1-1", request: validOrder() },
      { now },
    );
    expect(placed.text).toBe("HD-1 · order HD-1-1: Placed with the supplier");
    expect(validateBlocks(placed.blocks, "message", "/blocks")).toEqual([]);
  });

  it("shows a known type whose data does not match our schema generically, with the reason", () => {
    const rendered = renderEventReply(
      {
        ...base,
        type: "order.status_changed",
        payload: {
          id: "evt_1",
          type: "order.status_changed",
          occurredAt: "2026-11-24T09:00:00Z",
          correlationId: "0b6f6a4e-8f5c-4a53-9d1e-1a2b3c4d5e6f",
          data: { status: "teleported" },
        },
      },
      { now },
    );
    expect(rendered.text).toBe("Supplier update: order.status_changed");
    expect(JSON.stringify(rendered.blocks)).toContain("teleported");
  });
});

describe("values from outside in mrkdwn", () => {
  it("makes a link only of an http(s) URL that cannot end early, and shows anything else as its escaped label", () => {
    expect(slackLink("https://track.example.com/JD01?a=1&b=2", "DHL <JD01>")).toBe(
      "<https://track.example.com/JD01?a=1&b=2|DHL &lt;JD01&gt;>",
    );
    for (const url of [
      "https://track.example/a> <!channel> <https://phish.example/login",
      "https://track.example/a|fake label",
      "https://track.example/a b",
      "https://track.example/a\nb",
      "javascript:alert(1)",
      "mailto:someone@example.com",
      "https://",
      `https://track.example/${"a".repeat(1_000)}`,
    ]) {
      expect(isLinkable(url), url).toBe(false);
      expect(slackLink(url, "DHL 1Z")).toBe("DHL 1Z");
    }
    expect(slackLink("https://track.example.com/1", "a|b")).toBe("<https://track.example.com/1|a¦b>");
    expect(slackLink("https://track.example.com/1", "  ")).toBe("<https://track.example.com/1|link>");
  });

  it("escapes and cuts a value to its budget, never inside an entity or a surrogate pair", () => {
    expect(shown("<!channel> & co", 100)).toBe("&lt;!channel&gt; &amp; co");
    expect(shown("x".repeat(900_000), 10)).toBe(`${"x".repeat(9)}…`);
    expect(shown("ab<cd", 5)).toBe("ab…");
    expect(shown(`abc${"🦄".repeat(3)}`, 5)).toBe("abc…");
  });
});

describe("tracking", () => {
  const info = (parcel: number, minute: number, eventId: string): TrackingInfo => ({
    carrier: "DHL",
    trackingNumber: `T${parcel}`,
    trackingUrl: `https://t.example.com/${parcel}`,
    status: "in_transit",
    parcel: { number: parcel, of: 2 },
    occurredAt: new Date(Date.UTC(2026, 10, 24, 9, minute)).toISOString(),
    eventId,
  });

  it("keeps the newest update per parcel and overall; an older one arriving late changes nothing", () => {
    const one = foldTracking(null, info(1, 10, "a"));
    const two = foldTracking(one, info(2, 20, "b"));
    expect(two?.latest.eventId).toBe("b");
    expect(Object.keys(two?.parcels ?? {})).toEqual(["1", "2"]);
    expect(foldTracking(two, info(2, 5, "c"))).toBeNull();
    const olderParcelOne = foldTracking(two, info(1, 15, "d"));
    expect(olderParcelOne?.latest.eventId).toBe("b");
    expect(olderParcelOne?.parcels["1"]?.eventId).toBe("d");
    expect(foldTracking(two, info(2, 20, "b"))).toBeNull();
  });
});

describe("tracking without a URL", () => {
  it("is kept, shown as the carrier and number in text, and parcels without URLs stay apart", () => {
    const info = (parcel: number): TrackingInfo => ({
      carrier: "DHL",
      trackingNumber: `T${parcel}`,
      status: "in_transit",
      parcel: { number: parcel, of: 2 },
      occurredAt: new Date(Date.UTC(2026, 10, 24, 9, parcel)).toISOString(),
      eventId: `e${parcel}`,
    });
    const doc = foldTracking(foldTracking(null, info(1)), info(2));
    expect(readTracking(doc)).toEqual(doc);
    expect(trackingLinks(doc)).toEqual(["DHL T1 (parcel 1 of 2)", "DHL T2 (parcel 2 of 2)"]);
  });
});

describe("channel pacer", () => {
  it("allows a burst, then one message per interval; pauses a channel after a 429", () => {
    let t = 0;
    const pacer = new ChannelPacer({ perSecond: 1, burst: 2, now: () => t });
    expect(pacer.reserve("C1", 5000)).toEqual({ waitMs: 0, reserved: true });
    expect(pacer.reserve("C1", 5000)).toEqual({ waitMs: 0, reserved: true });
    expect(pacer.reserve("C1", 5000)).toEqual({ waitMs: 1000, reserved: true });
    expect(pacer.reserve("C1", 500)).toEqual({ waitMs: 2000, reserved: false });
    // Other channels are not held back.
    expect(pacer.reserve("C2", 0)).toEqual({ waitMs: 0, reserved: true });
    t = 10_000;
    pacer.pauseUntil("C2", 13_000);
    expect(pacer.reserve("C2", 5000)).toEqual({ waitMs: 3000, reserved: true });
    expect(pacer.reserve("C2", 5000)).toEqual({ waitMs: 4000, reserved: true });
  });
});
