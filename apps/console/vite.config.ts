import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { promptToolsSchema } from "./tools-schema-plugin.ts";

/**
 * The console builds into dist/, which the server serves at `/`. Hashed file names under assets/ let the
 * server cache them for a year; no inline script is emitted (the server's Content-Security-Policy forbids it).
 */
export default defineConfig({
  plugins: [react(), promptToolsSchema()],
  build: {
    outDir: "dist",
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  server: { proxy: { "/v2": "http://127.0.0.1:8080" } },
});
