import type { schemas } from "@pharos/contract";
import { describe, expect, it } from "vitest";
import { grade, type RowOutcome } from "./grade.ts";
import { noJudge, row } from "./test-support.ts";

const run = (code: string, outcome: Partial<RowOutcome> = {}, timeoutMs = 5000) =>
  grade({ type: "javascript", group: "code", code, timeoutMs }, row({ output: "hello", ...outcome }), noJudge);

const response: schemas.PromptMessage[] = [{ role: "assistant", content: [{ modality: "text", value: "hello" }] }];

describe("javascript", () => {
  it("returns the code's verdict", async () => {
    const code = `
      const ok = data.output.includes(data.variables.orderId);
      return { grade: ok ? 'pass' : 'fail', score: ok ? 1 : 0, reason: ok ? 'mentions the order' : 'order id missing' };`;
    expect(await run(code, { output: "Order A-17 ships today", variables: { orderId: "A-17" } })).toEqual({
      grade: "pass",
      score: 1,
      reason: "mentions the order",
    });
    expect(await run(code, { output: "It ships today", variables: { orderId: "A-17" } })).toEqual({
      grade: "fail",
      score: 0,
      reason: "order id missing",
    });
    expect(await run("return { grade: 'pass', score: 0.25, reason: '' }")).toEqual({
      grade: "pass",
      score: 0.25,
      reason: "",
    });
  });

  it("awaits asynchronous code", async () => {
    const code = `
      const words = await Promise.resolve(data.output.split(' '));
      await null;
      return { grade: 'pass', score: words.length / 10, reason: 'async' };`;
    expect(await run(code, { output: "a b c" })).toEqual({ grade: "pass", score: 0.3, reason: "async" });
  });

  it("sees output, completion, variables and response", async () => {
    const code = "return { grade: 'pass', score: 1, reason: JSON.stringify(data) };";
    const verdict = await run(code, { output: "hello", variables: { city: "Oslo" }, responseMessages: response });
    expect(JSON.parse(verdict.reason)).toEqual({
      output: "hello",
      completion: "hello",
      variables: { city: "Oslo" },
      response,
    });
  });

  it("has no host objects: process, require, fetch and the rest are undefined", async () => {
    const code = `
      const names = ['process', 'require', 'fetch', 'module', 'global', 'Buffer', 'setTimeout', 'XMLHttpRequest', 'std', 'os'];
      return { grade: 'pass', score: 1, reason: names.map((name) => typeof globalThis[name]).join(',') };`;
    expect((await run(code)).reason).toBe(Array(10).fill("undefined").join(","));
    expect(await run("return await import('fs')")).toMatchObject({ grade: "unknown", score: 0 });
  });

  it("is unknown when the code throws, synchronously or not", async () => {
    expect(await run("null.x")).toEqual({
      grade: "unknown",
      score: 0,
      reason: "threw: TypeError: cannot read property 'x' of null",
    });
    expect(await run("await null; throw new RangeError('too far')")).toEqual({
      grade: "unknown",
      score: 0,
      reason: "threw: RangeError: too far",
    });
    expect((await run("throw 'plain'")).reason).toBe("threw: plain");
    expect((await run("throw { code: 7 }")).reason).toBe('threw: {"code":7}');
    expect((await run("throw 7n")).reason).toBe("threw: 7");
  });

  it("is unknown when the code does not compile", async () => {
    const verdict = await run("return {");
    expect(verdict).toMatchObject({ grade: "unknown", score: 0 });
    expect(verdict.reason).toMatch(/^does not compile: SyntaxError: /);
  });

  it("is unknown when the code exceeds its time limit", async () => {
    expect(await run("while (true) {}", {}, 100)).toEqual({
      grade: "unknown",
      score: 0,
      reason: "exceeded the 100 ms time limit",
    });
    expect(
      (await run("try { while (true) {} } catch { return { grade: 'pass', score: 1, reason: '' } }", {}, 100)).reason,
    ).toBe("exceeded the 100 ms time limit");
    expect((await run("await null; for (;;) {}", {}, 100)).reason).toBe("exceeded the 100 ms time limit");
    expect((await run("async function spin() { await null; return spin(); } await spin();", {}, 100)).reason).toBe(
      "exceeded the 100 ms time limit",
    );
  });

  it("stops code stuck in long built-in operations, which QuickJS does not interrupt, and starts afresh", async () => {
    expect(await run("for (;;) Array(1e6).join('x');", {}, 100)).toEqual({
      grade: "unknown",
      score: 0,
      reason: "exceeded the 100 ms time limit",
    });
    expect((await run("return { grade: 'pass', score: 1, reason: 'next row' }")).reason).toBe("next row");
  });

  it("grades rows given at the same time one after the other", async () => {
    const verdicts = await Promise.all(
      [1, 2, 3].map((n) => run(`await null; return { grade: 'pass', score: ${n} / 3, reason: '${n}' }`)),
    );
    expect(verdicts.map((verdict) => verdict.reason)).toEqual(["1", "2", "3"]);
  });

  it("is unknown when the code exceeds the memory limit", async () => {
    expect(await run("const a = []; while (true) a.push('x'.repeat(1e6));")).toEqual({
      grade: "unknown",
      score: 0,
      reason: "exceeded the 64 MB memory limit",
    });
  });

  it("keeps grading rows after runs that the engine cannot free cleanly", async () => {
    // Leaves quickjs-emscripten 0.32 unable to free the runtime (its issue #269): the module is replaced.
    await run("async function spin() { await null; return spin(); } await spin();", {}, 100);
    expect(await run("return { grade: 'pass', score: 1, reason: 'still works' }")).toEqual({
      grade: "pass",
      score: 1,
      reason: "still works",
    });
  });

  it("is unknown when the code recurses without end", async () => {
    expect(await run("function down() { return down(); } return down();")).toEqual({
      grade: "unknown",
      score: 0,
      reason: "threw: InternalError: stack overflow",
    });
  });

  it("is unknown when the promise never settles", async () => {
    expect((await run("await new Promise(() => {})")).reason).toBe("returned a promise that never settles");
  });

  it("is unknown when the code returns another shape", async () => {
    expect(await run("return { grade: 'ok', score: 1, reason: 'x' }")).toEqual({
      grade: "unknown",
      score: 0,
      reason:
        'returned {"grade":"ok","score":1,"reason":"x"} instead of {grade, score, reason}: grade must be "pass", "fail" or "unknown"',
    });
    expect((await run("return { grade: 'pass', score: 2, reason: 'x' }")).reason).toBe(
      'returned {"grade":"pass","score":2,"reason":"x"} instead of {grade, score, reason}: score must be a number from 0 to 1',
    );
    expect((await run("return { grade: 'pass', score: 1 }")).reason).toBe(
      'returned {"grade":"pass","score":1} instead of {grade, score, reason}: reason must be a string',
    );
    expect((await run("return 'pass'")).reason).toBe(
      'returned "pass" instead of {grade, score, reason}: not an object',
    );
    expect((await run("data.output.length")).reason).toBe(
      "returned undefined instead of {grade, score, reason}: not an object",
    );
    expect((await run("return [1]")).reason).toBe("returned [1] instead of {grade, score, reason}: not an object");
    expect((await run("return 7n")).reason).toBe('returned "7" instead of {grade, score, reason}: not an object');
    expect((await run("return Symbol('s')")).reason).toBe(
      'returned "Symbol(s)" instead of {grade, score, reason}: not an object',
    );
    expect((await run("return () => 1")).grade).toBe("unknown");
  });

  it("keeps an unknown verdict from the code with score 0", async () => {
    expect(await run("return { grade: 'unknown', score: 0.7, reason: 'cannot tell' }")).toEqual({
      grade: "unknown",
      score: 0,
      reason: "cannot tell",
    });
  });

  it("is unknown without running when the row produced no output", async () => {
    expect(await run("throw new Error('ran')", { output: null })).toEqual({
      grade: "unknown",
      score: 0,
      reason: "the row produced no output",
    });
  });

  it("starts every row afresh", async () => {
    const code =
      "globalThis.count = (globalThis.count ?? 0) + 1; return { grade: 'pass', score: 1, reason: String(count) };";
    expect((await run(code)).reason).toBe("1");
    expect((await run(code)).reason).toBe("1");
  });
});
