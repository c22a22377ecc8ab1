/** X-Request-Id: a client's UUID is echoed, anything else replaced by a generated one, on errors too. */
import { expect, it } from "vitest";
import { describeEachStore } from "../testing/harness.ts";

describeEachStore("request ids", (use) => {
  it("echoes a client's UUID request id and replaces anything else", async () => {
    const h = use();
    const id = "0b6f4c7e-3f8a-4a53-9d0c-6f1f5a1d2e3b";
    const echoed = await h.request("GET", "/projects", { headers: { "X-Request-Id": id } });
    expect(echoed.headers.get("X-Request-Id")).toBe(id);
    const replaced = await h.request("GET", "/projects", { headers: { "X-Request-Id": "not-a-uuid" } });
    expect(replaced.headers.get("X-Request-Id")).not.toBe("not-a-uuid");
    const error = await h.request("GET", "/projects/x", { key: null, headers: { "X-Request-Id": id } });
    expect(error.headers.get("X-Request-Id")).toBe(id);
  });
});
