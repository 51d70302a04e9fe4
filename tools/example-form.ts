/**
 * A complete delivery for the example customer file's "Acme EU" profile (examples/order-desk.config.yml), as an
 * agent types it into the order modal; keys are the modal's block ids, as `SlackUser.submit` takes them. One
 * copy for the tests and the benchmarks, so a change to the modal or the example catalog is made once.
 */
export const EXAMPLE_DELIVERY = {
  first_name: "Nina",
  last_name: "Newhire",
  email: "nina@example.com",
  phone: "+31 20 555 0101",
  delivery_at: "Home",
  address1: "Keizersgracht 1",
  city: "Amsterdam",
  zip: "1015 CJ",
  country: { value: "NL", text: "Netherlands (NL)" },
  line_0_item: { value: "LAP-14-PRO", text: 'Laptop 14" Pro (LAP-14-PRO)' },
  line_0_quantity: "1",
} as const;
