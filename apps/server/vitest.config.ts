import { defineProject, mergeConfig } from "vitest/config"
import { shared } from "../../vitest.shared.js"

// Black-box tests over real HTTP with the worker running (speech recognition, batches, webhooks):
// each may wait on real work, slower when CI runs every suite at once on two cores.
// `event-loop-watch.ts` names any test that holds a worker's event loop for long (see there).
export default mergeConfig(
  shared,
  defineProject({ test: { name: "server", testTimeout: 60_000, setupFiles: ["./test/event-loop-watch.ts"] } })
)
