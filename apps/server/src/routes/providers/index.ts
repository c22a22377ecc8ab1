import type { RouteDefinition } from "../define-route.ts";
import createProvider from "./create-provider.ts";
import deleteProvider from "./delete-provider.ts";
import getProvider from "./get-provider.ts";
import listProviders from "./list-providers.ts";
import updateProvider from "./update-provider.ts";

/** The Providers operations, in spec order. */
export const providerRoutes = [
  listProviders,
  createProvider,
  getProvider,
  updateProvider,
  deleteProvider,
] as RouteDefinition[];
