import { describe, expect, it } from "vitest";
import { redactUrl, redactUrlsIn } from "../../src/redact-url.ts";

describe("redactUrl", () => {
  it("hides the user name and password written into a URL and keeps the rest as written", () => {
    expect(redactUrl("https://user:p%40ss@supplier.example/api/v1?x=1#top")).toBe(
      "https://***@supplier.example/api/v1?x=1#top",
    );
    expect(redactUrl("http://user:pass@127.0.0.1:4010")).toBe("http://***@127.0.0.1:4010");
    expect(redactUrl("http://only-user@host/")).toBe("http://***@host/");
    expect(redactUrl("http://a:b@c@host/x@y")).toBe("http://***@host/x@y");
    expect(redactUrl(new URL("https://u:p@host/"))).toBe("https://***@host/");
  });

  it("returns a URL without credentials unchanged, and cleans text that is not a URL", () => {
    expect(redactUrl("https://supplier.example/api")).toBe("https://supplier.example/api");
    expect(redactUrl("not a url, but http://u:p@h/ inside")).toBe("not a url, but http://***@h/ inside");
  });
});

describe("redactUrlsIn", () => {
  it("hides credentials of every URL in free text, not an e-mail address or a path's @", () => {
    expect(
      redactUrlsIn(
        "GET postgres://od:secret@db:5432/od failed; see https://x.example/a@b or ops@example.com",
      ),
    ).toBe("GET postgres://***@db:5432/od failed; see https://x.example/a@b or ops@example.com");
  });
});
