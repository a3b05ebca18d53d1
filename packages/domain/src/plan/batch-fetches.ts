/**
 * "Fetches of a finished batch: 60 per 24 hours, then 429 with Retry-After", as a pure sliding
 * window over the timestamps (ms) of the fetches that were served.
 *
 * Every served fetch of a finished batch counts, the first one that reports it finished included.
 * A fetch at `t` counts while `now - t < 24 h`. A refused fetch is not recorded, so refusals never
 * extend the wait; Retry-After is the whole seconds until the oldest counted fetch leaves the window.
 */
import { finishedBatchFetchesPerWindow, finishedBatchFetchWindowMs } from "./limits.js"

export interface FetchWindowDecision {
  readonly allowed: boolean
  /** The fetches still in the window, oldest first, with this one appended when allowed. */
  readonly fetches: ReadonlyArray<number>
  /** 0 when allowed; otherwise at least 1. */
  readonly retryAfterSeconds: number
  /** Fetches left in the window after this one. */
  readonly remaining: number
}

export interface FetchWindow {
  readonly max: number
  readonly windowMs: number
}

export const finishedBatchFetchWindow: FetchWindow = {
  max: finishedBatchFetchesPerWindow,
  windowMs: finishedBatchFetchWindowMs
}

/** The fetches (ms timestamps) that still count at `nowMs`, oldest first. */
export const fetchesInWindow = (
  fetches: ReadonlyArray<number>,
  nowMs: number,
  window: FetchWindow = finishedBatchFetchWindow
): ReadonlyArray<number> => fetches.filter((t) => nowMs - t < window.windowMs).sort((a, b) => a - b)

/** Decide one more fetch at `nowMs` given the earlier served fetches. */
export const recordFetch = (
  fetches: ReadonlyArray<number>,
  nowMs: number,
  window: FetchWindow = finishedBatchFetchWindow
): FetchWindowDecision => {
  const counted = fetchesInWindow(fetches, nowMs, window)
  if (counted.length < window.max) {
    return {
      allowed: true,
      fetches: [...counted, nowMs],
      retryAfterSeconds: 0,
      remaining: window.max - counted.length - 1
    }
  }
  const freedAt = (counted[counted.length - window.max] ?? nowMs) + window.windowMs
  return {
    allowed: false,
    fetches: counted,
    retryAfterSeconds: Math.max(1, Math.ceil((freedAt - nowMs) / 1000)),
    remaining: 0
  }
}
