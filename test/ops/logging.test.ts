/**
 * What the app's logger (src/log.ts) lets through: an order request, a draft and errors carrying them, logged at
 * debug level in the shapes the code meets them (request bodies, Slack view state, supplier errors), must not
 * show the delivery contact or addresses (unless LOG_PERSONAL_DATA=true), and never a secret.
 */
import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, redact } from "../../src/log.ts";
import { emptyDraft, type OrderDraft } from "../../src/orders/draft.ts";
import type { CreateOrderRequest } from "../../src/supplier/schema.ts";
import { signWebhook } from "../../src/supplier/webhook-signature.ts";

/** Distinctive values, so a hit in the output can only be a leak. */
const PERSONAL = {
  firstName: "Zebulon",
  lastName: "Quarrington",
  email: "zebulon.q@corp-example.test",
  phoneNumber: "+44 20 7946 0321",
  attention: "Attn Quarrington Desk",
  address1: "17 Wobbleton Mews",
  address2: "Flat 3b Gribble House",
  city: "Snorkelbury",
  zipCode: "SN9 4QX",
  stateName: "Upper Wessexshire",
};

const API_KEY = `ops_live_${randomBytes(16).toString("hex")}`;
// Made at run time, in the shape of a real token (a fake: no such token exists).
const BOT_TOKEN = ["xoxb", "1234567890", randomBytes(12).toString("hex")].join("-");
const APP_TOKEN = `xapp-1-A0123-${randomBytes(12).toString("hex")}`;
const SIGNING_SECRET = randomBytes(16).toString("hex");
const WEBHOOK_SECRET = `whsec_${randomBytes(32).toString("base64")}`;
const WEBHOOK_SIGNATURE = signWebhook({
  id: "evt_1",
  timestamp: 1_790_000_000,
  body: "{}",
  secret: WEBHOOK_SECRET,
})["webhook-signature"];

function orderRequest(): CreateOrderRequest {
  const contact = {
    firstName: PERSONAL.firstName,
    lastName: PERSONAL.lastName,
    phoneNumber: PERSONAL.phoneNumber,
    email: PERSONAL.email,
  };
  const address = {
    address1: PERSONAL.address1,
    address2: PERSONAL.address2,
    city: PERSONAL.city,
    zipCode: PERSONAL.zipCode,
    stateName: PERSONAL.stateName,
    countryIso2: "GB",
  };
  return {
    externalDocumentNumber: "PO-LOG-0001",
    type: "New",
    customerReference: "TICKET-LOG",
    invoice: { id: "INV-1", companyName: "Acme", attentionName: PERSONAL.attention, ...address },
    consignee: { companyName: "Acme", attentionName: PERSONAL.attention, ...address },
    sellTo: { companyName: "Acme", contact, ...address },
    shipping: {
      deliveryAt: "Home",
      contact,
      ...address,
      attention: PERSONAL.attention,
      reference: "HOME-OFFICE",
    },
    orderLines: [{ itemNumber: "LAPTOP-14", quantity: 1 }],
  };
}

function orderDraft(): OrderDraft {
  return {
    ...emptyDraft("default", "TICKET-LOG"),
    firstName: PERSONAL.firstName,
    lastName: PERSONAL.lastName,
    email: PERSONAL.email,
    phone: PERSONAL.phoneNumber,
    deliveryAt: "Home",
    attention: PERSONAL.attention,
    address1: PERSONAL.address1,
    address2: PERSONAL.address2,
    city: PERSONAL.city,
    zip: PERSONAL.zipCode,
    country: "GB",
  };
}

class SupplierRejected extends Error {
  constructor(
    message: string,
    readonly details: unknown,
  ) {
    super(message);
  }
}

/** Logs everything the app could plausibly log about an order, at debug level; returns the output. */
function logEverything(logPersonalData: boolean): string {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      chunks.push(String(chunk));
      callback();
    },
  });
  const logger = createLogger({ level: "debug", logPersonalData }, sink);
  const request = orderRequest();
  const draft = orderDraft();

  logger.debug({ orderId: "o-1", request }, "placing order");
  logger.debug(
    {
      http: {
        method: "POST",
        url: "https://api.supplier.example/v1/orders/create",
        headers: { "X-Api-Key": API_KEY, "content-type": "application/json" },
        body: request,
      },
    },
    "supplier request",
  );
  logger.debug({ orderId: "o-1", draft }, "draft saved");
  logger.debug({ submission: { values: { ...draft } } }, "modal submitted");
  logger.debug(
    {
      view: {
        state: {
          values: {
            first_name: { v: { type: "plain_text_input", value: PERSONAL.firstName } },
            city: { v: { type: "plain_text_input", value: PERSONAL.city } },
            zip: { v: { type: "plain_text_input", value: PERSONAL.zipCode } },
            phone: { v: { type: "plain_text_input", value: PERSONAL.phoneNumber } },
          },
        },
      },
    },
    "view_submission",
  );
  logger.debug({ orders: [{ id: "o-1", request }] }, "orders listed");
  logger.error(
    { err: new SupplierRejected("VALIDATION_FAILED", { request, fields: { city: PERSONAL.city } }) },
    "supplier refused the order",
  );
  logger.error(new SupplierRejected(`key ${API_KEY} was refused`, { shipping: request.shipping }));
  logger.warn({ to: PERSONAL.email }, `could not reach ${PERSONAL.email}`);

  logger.info(
    { apiKey: API_KEY, botToken: BOT_TOKEN, appToken: APP_TOKEN, signingSecret: SIGNING_SECRET },
    "configuration",
  );
  logger.info({ config: { slack: { botToken: BOT_TOKEN, signingSecret: SIGNING_SECRET } } }, "nested");
  logger.info({ webhooks: { secrets: [WEBHOOK_SECRET] } }, "webhook secrets");
  logger.warn(
    {
      req: {
        headers: {
          "webhook-id": "evt_1",
          "webhook-signature": WEBHOOK_SIGNATURE,
          "x-slack-signature": `v0=${SIGNING_SECRET}`,
          authorization: `Bearer ${BOT_TOKEN}`,
        },
      },
    },
    "webhook refused",
  );
  logger.error({ err: new Error(`invalid_auth for ${BOT_TOKEN}`) }, `Slack said no to ${APP_TOKEN}`);
  logger.debug({ note: `signed ${WEBHOOK_SIGNATURE} with ${WEBHOOK_SECRET}` }, "free text");
  return chunks.join("");
}

const SECRETS = { API_KEY, BOT_TOKEN, APP_TOKEN, SIGNING_SECRET, WEBHOOK_SECRET, WEBHOOK_SIGNATURE };

describe("log redaction", () => {
  it("keeps the delivery contact and addresses out of debug logs, wherever they appear", () => {
    const out = logEverything(false);
    expect(out.split("\n").filter(Boolean)).toHaveLength(15);
    for (const [field, value] of Object.entries(PERSONAL)) {
      expect(out, `${field} leaked`).not.toContain(value);
    }
    // What is needed to follow an order stays.
    expect(out).toContain("PO-LOG-0001");
    expect(out).toContain("TICKET-LOG");
    expect(out).toContain("LAPTOP-14");
    expect(out).toContain('"message":"VALIDATION_FAILED"');
    expect(out).toContain('"type":"SupplierRejected"');
  });

  it("never writes an API key, a Slack token, a signing secret, a webhook secret or signature", () => {
    for (const personal of [false, true]) {
      const out = logEverything(personal);
      for (const [name, value] of Object.entries(SECRETS)) {
        expect(out, `${name} leaked (LOG_PERSONAL_DATA=${personal})`).not.toContain(value);
      }
      expect(out).toContain("[redacted]");
    }
  });

  it("keeps personal data with LOG_PERSONAL_DATA=true, for local debugging", () => {
    const out = logEverything(true);
    for (const value of Object.values(PERSONAL)) expect(out).toContain(value);
  });

  it("redacts a copy: the logged objects are left as they were", () => {
    const request = orderRequest();
    const copy = redact({ request });
    expect(copy.request.shipping).toBe("[redacted]");
    expect(request.shipping.city).toBe(PERSONAL.city);
    const cyclic: Record<string, unknown> = { city: PERSONAL.city };
    cyclic.self = cyclic;
    expect(JSON.stringify(redact(cyclic))).not.toContain(PERSONAL.city);
  });
});
