/** Type tests: what the client's calls accept and return comes from the spec (run by `vitest --typecheck` and tsc). */
import type { components } from "@pharos/contract/types";
import { describe, expectTypeOf, it } from "vitest";
import { createClient, type PharosClient } from "./client.ts";
import { unwrap } from "./errors.ts";
import {
  type ItemOf,
  type PageOf,
  type PaginatedGetPath,
  type PaginatedPostPath,
  pages,
  paginate,
} from "./paginate.ts";

type Schemas = components["schemas"];
declare const client: PharosClient;

describe("client types", () => {
  it("createClient returns the typed client", () => {
    expectTypeOf(createClient({ baseUrl: "http://127.0.0.1:8080/v2", apiKey: "k" })).toEqualTypeOf<PharosClient>();
  });

  it("types response data and errors from the spec", async () => {
    const result = await client.GET("/projects/{projectId}", { params: { path: { projectId: "project_x" } } });
    expectTypeOf(result.data).toEqualTypeOf<Schemas["Project"] | undefined>();
    expectTypeOf(result.error).toEqualTypeOf<Schemas["Error"] | undefined>();
    if (result.data) expectTypeOf(result.data.icon).toEqualTypeOf<Schemas["Icon"]>();

    const list = await client.GET("/projects", { params: { query: { limit: 10, sort: "createdAt:asc" } } });
    expectTypeOf(list.data?.projects).toEqualTypeOf<Schemas["Project"][] | undefined>();
    expectTypeOf(list.data?.pagination.nextCursor).toEqualTypeOf<string | null | undefined>();

    const created = await client.POST("/projects/{projectId}/deployment-environments", {
      params: { path: { projectId: "project_x" } },
      body: { name: "production" },
    });
    expectTypeOf(created.data).toEqualTypeOf<Schemas["DeploymentEnvironment"] | undefined>();
    expectTypeOf(unwrap(created)).toEqualTypeOf<Schemas["DeploymentEnvironment"]>();
  });

  it("rejects requests the spec does not allow", () => {
    // @ts-expect-error no such path
    client.GET("/project");
    // @ts-expect-error the path parameter is required
    client.GET("/projects/{projectId}");
    // @ts-expect-error sort takes only the spec's values
    client.GET("/projects", { params: { query: { sort: "title" } } });
    // @ts-expect-error the body needs a title
    client.POST("/projects", { body: {} });
  });

  it("types paginated items for GET lists and POST searches", () => {
    expectTypeOf(paginate(client, "GET", "/projects")).toEqualTypeOf<
      AsyncGenerator<Schemas["Project"], void, undefined>
    >();
    expectTypeOf(
      paginate(client, "GET", "/projects/{projectId}/deployment-environments", {
        params: { path: { projectId: "project_x" } },
      }),
    ).toEqualTypeOf<AsyncGenerator<Schemas["DeploymentEnvironment"], void, undefined>>();
    // `limit` is required by the generated types although the spec gives it a default (see the report).
    expectTypeOf(
      paginate(client, "POST", "/logs/traces", { body: { projectId: "project_x", limit: 50 } }),
    ).toEqualTypeOf<AsyncGenerator<Schemas["LogTrace"], void, undefined>>();
    expectTypeOf(pages(client, "GET", "/projects")).toEqualTypeOf<
      AsyncGenerator<Schemas["ProjectList"], void, undefined>
    >();
    expectTypeOf<ItemOf<PageOf<"POST", "/logs/spans">>>().toEqualTypeOf<Schemas["LogSpan"]>();
  });

  it("offers paginate only on cursor-paginated operations", () => {
    expectTypeOf<"/projects">().toExtend<PaginatedGetPath>();
    expectTypeOf<"/logs/traces">().toExtend<PaginatedPostPath>();
    expectTypeOf<"/projects/{projectId}">().not.toExtend<PaginatedGetPath>();
    expectTypeOf<"/models">().not.toExtend<PaginatedGetPath>();
    expectTypeOf<"/logs/trace">().not.toExtend<PaginatedPostPath>();
    // @ts-expect-error a single resource is not a list
    paginate(client, "GET", "/projects/{projectId}", { params: { path: { projectId: "project_x" } } });
    // @ts-expect-error the log search is a POST
    paginate(client, "GET", "/logs/traces");
    // @ts-expect-error the deployment-environment list needs its projectId
    paginate(client, "GET", "/projects/{projectId}/deployment-environments");
    // @ts-expect-error a search needs its body
    paginate(client, "POST", "/logs/spans");
  });
});
