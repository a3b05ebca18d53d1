import { defineConfig } from "vitest/config"

// Workspace packages export their TypeScript sources under the "@verbatim/source" condition,
// so tests run against source without a build step. Vitest hands the SSR conditions to Node as
// `--conditions`; "import" or "module" there would make Node's own `require` load ESM builds of
// CommonJS packages (pg-pool), so only the source condition is added to Node's defaults.
const conditions = ["@verbatim/source", "node", "development|production"]

export const shared = defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["@verbatim/source"] } },
  test: {
    include: ["test/**/*.test.ts"]
  }
})
