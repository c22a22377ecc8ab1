/**
 * `@pharos/server/testing`: the server's test doubles (a throwaway store, a fake LLM provider) for the tests of
 * other packages, kept off the main entry that the benchmark and other non-test code import.
 */
export { openScratchStore, type ScratchStore } from "../store/scratch.ts";
export { type FakeProvider, startFakeProvider } from "./fake-provider.ts";
export { type ServerProcess, startServer as startServerProcess, tempDatabaseDir } from "./processes.ts";
