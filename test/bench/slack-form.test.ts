import { describe, expect, it } from "vitest";
import { cloneSubmission, submissionBodies } from "../../bench/lib/slack-form.ts";

const template = JSON.stringify({
  type: "view_submission",
  view: {
    id: "V0ORIGINAL",
    root_view_id: "V0ORIGINAL",
    private_metadata: '{"ch":"C1","lk":["a"]}',
    state: {
      values: {
        ticket: { value: { type: "plain_text_input", value: "ABC-1" } },
        address: {
          value: { type: "plain_text_input", value: 'Rue de l\'Église 5 & 7, 100% "quoted"\n+ more' },
        },
      },
    },
  },
});

describe("submissionBodies", () => {
  it("fills an encoded body exactly as encoding each cloned payload would", () => {
    const bodies = submissionBodies(template, "ticket");
    for (const [view, ticket] of [
      ["V1", "B-1"],
      ["VABCD42", "BABCD-42"],
    ] as const) {
      const expected = new URLSearchParams({
        payload: JSON.stringify(cloneSubmission(template, "ticket", view, ticket)),
      }).toString();
      expect(bodies(view, ticket)).toBe(expected);
    }
  });

  it("refuses ids that form encoding would change", () => {
    expect(() => submissionBodies(template, "ticket")("V 1", "B-1")).toThrow(/letters, digits and dashes/);
  });
});
