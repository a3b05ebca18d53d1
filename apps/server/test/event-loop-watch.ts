/**
 * Names the test that held this test worker's event loop for long. Vitest's worker answers its
 * runner over a channel with a fixed 60 s timeout: a test that blocks the loop that long (a
 * synchronous spawn, a chain of microtasks that never yields) fails the whole run with
 * "Timeout calling onTaskUpdate" and no test named. This writes one line to stderr for any block
 * over 15 s, so the log says which test it was. It asserts nothing: tests never assert on timings.
 */
import { afterEach, beforeEach, expect } from "vitest"

const reportOverMs = 15_000
let current = "(between tests)"
beforeEach(() => {
  current = expect.getState().currentTestName ?? "(unnamed test)"
})
afterEach(() => {
  current = `(just after) ${current}`
})
let last = Date.now()
const timer = setInterval(() => {
  const now = Date.now()
  const gap = now - last
  last = now
  if (gap > reportOverMs) {
    process.stderr.write(
      `event loop of this test worker held for ${Math.round(gap / 1000)} s, in ${expect.getState().testPath ?? "?"}: ${current}\n`
    )
  }
}, 1_000)
timer.unref()
