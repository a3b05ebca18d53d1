import { defineProject, mergeConfig } from "vitest/config"
import { shared } from "../../vitest.shared.js"

// Each translation starts Apertium's pipeline (about half a second): slower when CI runs every suite.
export default mergeConfig(shared, defineProject({ test: { name: "apertium", testTimeout: 60_000 } }))
