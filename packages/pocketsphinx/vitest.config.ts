import { defineProject, mergeConfig } from "vitest/config"
import { shared } from "../../vitest.shared.js"

// Each test runs the real recogniser (about 0.3x real time on one idle core): slower when CI runs
// every suite at once on two cores.
export default mergeConfig(shared, defineProject({ test: { name: "pocketsphinx", testTimeout: 60_000 } }))
