/**
 * The fault tests' worker process: `pnpm worker`'s program (`src/program.ts`) with the test wiring's
 * `test.delay` lane beside the release's own, so a test can give a worker jobs whose length and
 * outcome it chooses. Run from source with tsx's loader (`fleet.ts`, `startApp(..., { testLane })`).
 */
import { NodeRuntime } from "@effect/platform-node"
import { absorbRepeatedSignals } from "@verbatim/runtime"
import { testWorkerOn } from "@verbatim/runtime/testing"
import { workerProgram } from "../src/program.js"

absorbRepeatedSignals()
NodeRuntime.runMain(workerProgram(testWorkerOn), { disableErrorReporting: true, disablePrettyLogger: true })
