import { defineProject, mergeConfig } from "vitest/config"
import { shared } from "../../vitest.shared.js"

// The use cases on a real database (PostgreSQL in CI), most on the test clock: a test's real time is
// its statements', which a busy two-core machine stretches past vitest's 5 s default.
export default mergeConfig(shared, defineProject({ test: { name: "runtime", testTimeout: 30_000 } }))
