/// <reference types="vitest/config" />
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// The console talks only to the public HTTP API; in development `npm run dev` proxies it to a
// server on :8000 (`make run`). The built files are served by planrag itself at `/`.
const api = "http://127.0.0.1:8000";

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    chunkSizeWarningLimit: 700,
    // Rolldown's "[PLUGIN_TIMINGS] significant time in plugins" fires on any build over 3 s (a
    // busy machine) and names nothing a user of `make setup` can act on.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
  server: {
    proxy: Object.fromEntries(
      ["/api", "/ai", "/token", "/healthz"].map((p) => [p, { target: api, changeOrigin: false }]),
    ),
  },
  test: { environment: "jsdom", include: ["src/**/*.test.{ts,tsx}"] },
});
