import { defineConfig } from "vitest/config"

// Workspace packages export their TypeScript sources under the "@verbatim/source" condition,
// so tests run against source without a build step.
const conditions = ["@verbatim/source", "import", "module", "node", "default"]

export const shared = defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["@verbatim/source"] } },
  test: {
    include: ["test/**/*.test.ts"],
    fakeTimers: { toFake: undefined }
  }
})
