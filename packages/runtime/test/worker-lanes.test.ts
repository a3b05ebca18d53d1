/**
 * The lanes a worker consumes: a production worker (`workerOn`, as `pnpm worker` and the embedded
 * server build it) runs only the release's kinds of job; `test.delay` exists only in the test
 * wiring (`testWorkerOn`), and the server's metrics do not report it.
 */
import { describe, expect, it } from "@effect/vitest"
import { workerSettingsOf } from "../src/layers.js"
import { testLane, testWorkSettings } from "../src/testing.js"

describe("worker lanes", () => {
  it("a production worker consumes speech recognition only; the test wiring adds test.delay", () => {
    const work = testWorkSettings({ asrConcurrency: 3, concurrency: 5 })
    expect(workerSettingsOf(work, "owner").lanes).toEqual([{ lane: "asr", concurrency: 3 }])
    expect(workerSettingsOf(work, "owner", [testLane(work)]).lanes).toEqual([
      { lane: "asr", concurrency: 3 },
      { lane: "test.delay", concurrency: 5 }
    ])
  })
})
