import { defineProject, mergeConfig } from "vitest/config"
import { shared } from "../../vitest.shared.js"

// Property tests over real HTTP handlers run a hundred requests each: on a busy two-core machine one
// took 6.1 s beside 8 busy processes, past vitest's 5 s default.
export default mergeConfig(shared, defineProject({ test: { name: "api", testTimeout: 30_000 } }))
