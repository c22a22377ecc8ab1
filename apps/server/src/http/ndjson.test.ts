import pino from "pino";
import { describe, expect, it } from "vitest";
import { type ExportPage, ndjsonExport } from "./ndjson.ts";

const page = (ids: string[], nextCursor: string | null): ExportPage => ({
  items: ids.map((id) => ({ id })),
  pagination: { nextCursor },
});

async function* pages(rest: (ExportPage | Error)[]): AsyncGenerator<ExportPage, void, undefined> {
  for (const next of rest) {
    if (next instanceof Error) throw next;
    yield next;
  }
}

const silent = pino({ level: "silent" });

describe("ndjsonExport", () => {
  it("writes the items, a checkpoint after every page that has a next one, and the end line", async () => {
    const stream = ndjsonExport({ done: false, value: page(["a", "b"], "c1") }, pages([page(["c"], null)]), silent);
    expect(await new Response(stream).text()).toBe(
      '{"id":"a"}\n{"id":"b"}\n{"nextCursor":"c1","exported":2}\n{"id":"c"}\n{"end":true,"exported":3}\n',
    );
  });

  it("reads a page only when the reader has taken the previous one", async () => {
    const read: string[] = [];
    async function* counted(): AsyncGenerator<ExportPage, void, undefined> {
      for (const id of ["b", "c", "d"]) {
        read.push(id);
        yield page([id], id === "d" ? null : `after-${id}`);
      }
    }
    const reader = ndjsonExport({ done: false, value: page(["a"], "after-a") }, counted(), silent).getReader();
    await reader.read();
    expect(read).toEqual([]);
    await reader.read();
    expect(read).toEqual(["b"]);
    await reader.cancel();
    expect(read).toEqual(["b"]);
  });

  it("ends a failed export without its end line: the body errors after the pages sent", async () => {
    const stream = ndjsonExport(
      { done: false, value: page(["a"], "c1") },
      pages([page(["b"], "c2"), new Error("the database went away")]),
      silent,
    );
    const reader = stream.getReader();
    const decoder = new TextDecoder();
    let text = "";
    await expect(
      (async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          text += decoder.decode(value);
        }
      })(),
    ).rejects.toThrow("the database went away");
    expect(text).toBe('{"id":"a"}\n{"nextCursor":"c1","exported":1}\n{"id":"b"}\n{"nextCursor":"c2","exported":2}\n');
  });
});
