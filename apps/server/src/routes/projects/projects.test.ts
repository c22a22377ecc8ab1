import { expect, it } from "vitest";
import { describeEachStore } from "../../testing/harness.ts";
import {
  expectError,
  itHidesOtherWorkspaces,
  itRejectsMalformedJson,
  itRejectsMissingAndInvalidKeys,
} from "../../testing/shared-cases.ts";

describeEachStore("projects", (use) => {
  it("creates a project (201) with a default icon and reads it back", async () => {
    const h = use();
    const created = await h.request("POST", "/projects", { body: { title: "Support" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ title: "Support", icon: { type: "emoji", value: "📁" } });
    expect(created.body.id).toMatch(/^project_[0-9A-Z]{26}$/);
    const read = await h.request("GET", `/projects/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  it("lists projects newest first with cursor pagination, and honours sort and createdAfter", async () => {
    const h = use();
    const titles = ["p1", "p2", "p3"];
    const ids = [];
    for (const title of titles) ids.push((await h.request("POST", "/projects", { body: { title } })).body.id);
    const first = await h.request("GET", "/projects?limit=2");
    expect(first.status).toBe(200);
    expect(first.body.pagination).toMatchObject({ limit: 2, returned: 2, hasMore: true });
    expect(first.body.projects.map((p: { title: string }) => p.title)).toEqual(["p3", "p2"]);
    const second = await h.request("GET", `/projects?limit=2&cursor=${first.body.pagination.nextCursor}`);
    expect(second.body.projects[0].title).toBe("p1");
    const all = await h.request("GET", "/projects?limit=200&sort=createdAt:asc");
    expect(all.body.pagination).toMatchObject({ hasMore: false, nextCursor: null });
    const created = all.body.projects.map((p: { id: string }) => p.id);
    expect(created.slice(-3)).toEqual(ids);
    const after = await h.request("GET", `/projects?createdAfter=${all.body.projects.at(-1).createdAt}`);
    expect(after.body.projects.map((p: { id: string }) => p.id)).toEqual([ids[2]]);
  });

  it("rejects a tampered cursor and a cursor of another query with 400 INVALID_CURSOR", async () => {
    const h = use();
    await h.request("POST", "/projects", { body: { title: "a" } });
    await h.request("POST", "/projects", { body: { title: "b" } });
    const page = await h.request("GET", "/projects?limit=1");
    const cursor: string = page.body.pagination.nextCursor;
    const [payload, signature] = cursor.split(".") as [string, string];
    const forged = `${Buffer.from(JSON.stringify({ v: 1, q: "x", k: [0, "z"] })).toString("base64url")}.${signature}`;
    for (const bad of [forged, `${payload}.AAAA`, "garbage", `${cursor}x`]) {
      await expectError(await h.request("GET", `/projects?limit=1&cursor=${bad}`), 400, "INVALID_CURSOR");
    }
    await expectError(
      await h.request("GET", `/projects?limit=1&sort=createdAt:asc&cursor=${cursor}`),
      400,
      "INVALID_CURSOR",
    );
  });

  it("updates title and icon (200) and rejects an empty update", async () => {
    const h = use();
    const { body: project } = await h.request("POST", "/projects", { body: { title: "Old" } });
    const updated = await h.request("PATCH", `/projects/${project.id}`, {
      body: { title: "New", icon: { type: "emoji", value: "🚀" } },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ title: "New", icon: { value: "🚀" } });
    expect(updated.body.updatedAt).toBeGreaterThan(project.updatedAt);
    await expectError(await h.request("PATCH", `/projects/${project.id}`, { body: {} }), 400, "VALIDATION_ERROR");
  });

  it("validates titles, icons and ids", async () => {
    const h = use();
    const tooLong = await h.request("POST", "/projects", { body: { title: "x".repeat(51) } });
    await expectError(tooLong, 400, "VALIDATION_ERROR");
    expect(tooLong.body.error.details[0].field).toBe("title");
    await expectError(
      await h.request("POST", "/projects", { body: { title: "t", icon: { type: "svg", value: "x" } } }),
      400,
      "VALIDATION_ERROR",
    );
    await expectError(
      await h.request("POST", "/projects", { body: { title: "t", extra: 1 } }),
      400,
      "VALIDATION_ERROR",
    );
    await expectError(await h.request("GET", "/projects/project_short"), 400, "VALIDATION_ERROR");
    await expectError(await h.request("GET", "/projects?limit=201"), 400, "VALIDATION_ERROR");
    await expectError(await h.request("GET", `/projects/project_${"0".repeat(26)}`), 404, "RESOURCE_NOT_FOUND");
  });

  it("enforces roles and project restrictions with 403", async () => {
    const h = use();
    const readOnly = await h.newKey("read-only");
    await expectError(await h.request("POST", "/projects", { key: readOnly, body: { title: "x" } }), 403, "FORBIDDEN");
    expect((await h.request("GET", `/projects/${h.projectId}`, { key: readOnly })).status).toBe(200);

    const { body: other } = await h.request("POST", "/projects", { body: { title: "Elsewhere" } });
    const restricted = await h.newKey("full", [h.projectId]);
    await expectError(await h.request("GET", `/projects/${other.id}`, { key: restricted }), 403, "FORBIDDEN");
    await expectError(
      await h.request("POST", "/projects", { key: restricted, body: { title: "x" } }),
      403,
      "FORBIDDEN",
    );
    const listed = await h.request("GET", "/projects?limit=200", { key: restricted });
    expect(listed.body.projects.map((p: { id: string }) => p.id)).toEqual([h.projectId]);

    const ingest = await h.newKey("ingest-only");
    await expectError(await h.request("GET", "/projects", { key: ingest }), 403, "FORBIDDEN");
  });

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

  it("answers 413 PAYLOAD_TOO_LARGE to a body over 32 MB, and stores nothing", async () => {
    const h = use();
    const before = (await h.request("GET", "/projects?limit=200")).body.projects.length;
    const rawBody = JSON.stringify({ title: "big", padding: "x".repeat(32 * 1024 * 1024) });
    const reply = await h.request("POST", "/projects", { rawBody, headers: { "Content-Type": "application/json" } });
    await expectError(reply, 413, "PAYLOAD_TOO_LARGE");
    expect((await h.request("GET", "/projects?limit=200")).body.projects.length).toBe(before);
  });

  itRejectsMissingAndInvalidKeys(use, { method: "GET", path: () => "/projects" });
  itHidesOtherWorkspaces(use, { method: "GET", path: (h) => `/projects/${h.projectId}` });
  itHidesOtherWorkspaces(use, {
    method: "PATCH",
    path: (h) => `/projects/${h.projectId}`,
    body: () => ({ title: "x" }),
  });
  itRejectsMalformedJson(use, { method: "POST", path: () => "/projects" });
});

describeEachStore("deployment environments", (use) => {
  it("creates environments (201), lists them, and refuses a duplicate name case-insensitively (409)", async () => {
    const h = use();
    const path = `/projects/${h.projectId}/deployment-environments`;
    const created = await h.request("POST", path, { body: { name: "Production" } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ projectId: h.projectId, name: "Production" });
    expect(created.body.id).toMatch(/^env_/);
    await expectError(await h.request("POST", path, { body: { name: "production" } }), 409, "CONFLICT");
    await h.request("POST", path, { body: { name: "Staging" } });
    const list = await h.request("GET", `${path}?sort=createdAt:asc`);
    expect(list.status).toBe(200);
    expect(list.body.deploymentEnvironments.map((e: { name: string }) => e.name)).toEqual(["Production", "Staging"]);
    await expectError(await h.request("POST", path, { body: { name: "" } }), 400, "VALIDATION_ERROR");
    await expectError(
      await h.request("POST", `/projects/project_${"0".repeat(26)}/deployment-environments`, { body: { name: "x" } }),
      404,
      "RESOURCE_NOT_FOUND",
    );
  });

  itHidesOtherWorkspaces(use, {
    method: "GET",
    path: (h) => `/projects/${h.projectId}/deployment-environments`,
  });
});
