/**
 * Per-step timings from the spans the code already opens: a tracer that keeps the native spans and
 * adds each ended span's duration to a table by name. Wall time, not CPU: a step that waits for
 * PostgreSQL, Redis or the platform shows its wait.
 */
import { Effect, Layer, Tracer } from "effect"

export interface StepTime {
  readonly name: string
  readonly count: number
  readonly totalMs: number
  readonly meanMs: number
  readonly p50Ms: number
  readonly p99Ms: number
}

export const makeStepTimes = Effect.gen(function* () {
  const native = yield* Effect.tracer
  const durations = new Map<string, Array<number>>()
  const tracer = Tracer.make({
    span: (name, parent, context, links, startTime, kind, options) => {
      const span = native.span(name, parent, context, links, startTime, kind, options)
      const end = span.end.bind(span)
      span.end = (endTime, exit) => {
        end(endTime, exit)
        let list = durations.get(name)
        if (list === undefined) {
          list = []
          durations.set(name, list)
        }
        list.push(Number(endTime - startTime) / 1e6)
      }
      return span
    },
    context: (f) => f()
  })
  const table = (): ReadonlyArray<StepTime> =>
    [...durations].map(([name, list]) => {
      const sorted = [...list].sort((a, b) => a - b)
      const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0
      const totalMs = sorted.reduce((sum, ms) => sum + ms, 0)
      return {
        name,
        count: sorted.length,
        totalMs,
        meanMs: totalMs / sorted.length,
        p50Ms: at(0.5),
        p99Ms: at(0.99)
      }
    })
  /** A span's durations in the order its spans ended, rounded to 0.1 ms. */
  const inOrder = (name: string): ReadonlyArray<number> =>
    (durations.get(name) ?? []).map((ms) => Math.round(ms * 10) / 10)
  const reset = () => durations.clear()
  return { layer: Layer.setTracer(tracer), table, inOrder, reset }
})
