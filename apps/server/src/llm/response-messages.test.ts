/** The model's answer as an assistant message: generated images are kept only in the formats the spec has. */
import { describe, expect, it } from "vitest";
import { toResponseMessages } from "./response-messages.ts";

const file = (mediaType: string) => ({ type: "file", file: { mediaType, base64: "AAAA" } }) as any;

describe("toResponseMessages", () => {
  it("keeps images of the four formats and drops other files, whatever their media type is named", () => {
    const [message] = toResponseMessages([
      file("image/png"),
      file("constructor"),
      file("toString"),
      file("application/pdf"),
      file("image/gif"),
    ]);
    expect(message?.content).toEqual([
      { modality: "image", detail: "auto", value: { type: "base64", base64: "AAAA", mediaType: "png" } },
      { modality: "image", detail: "auto", value: { type: "base64", base64: "AAAA", mediaType: "gif" } },
    ]);
  });
});
