/** The order transcripts are shaped in: by start time, keeping the given order for equal starts. */
import type { Segment } from "./segment.js"

/** The segments sorted by start (a stable sort, so equal starts keep their order). */
export const sortByStart = <A extends Pick<Segment, "start">>(segments: ReadonlyArray<A>): Array<A> =>
  [...segments].sort((a, b) => a.start - b.start)
