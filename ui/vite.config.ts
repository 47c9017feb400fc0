// Builds the UI into the Python package, where `olg serve` serves it at /ui (same origin as
// the API, no CDN: every byte the page needs is in the build output).
import { defineConfig } from "vite";

export default defineConfig({
  base: "/ui/",
  build: {
    outDir: "../src/open_langgraph/server/ui_dist",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
  },
});
