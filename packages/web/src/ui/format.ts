/** How times, dates and prices read on the pages. */

/** `1:02:03` or `2:03` for a time in milliseconds. */
export const clock = (ms: number): string => {
  const total = Math.max(0, Math.floor(ms / 1000))
  const hours = Math.floor(total / 3600)
  const minutes = Math.floor((total % 3600) / 60)
  const seconds = total % 60
  const mm = hours > 0 ? String(minutes).padStart(2, "0") : String(minutes)
  return `${hours > 0 ? `${hours}:` : ""}${mm}:${String(seconds).padStart(2, "0")}`
}

/** A duration in seconds, in words: `12 min`, `1 h 5 min`, `40 s`. */
export const duration = (seconds: number): string => {
  if (seconds < 60) return `${Math.round(seconds)} s`
  const minutes = Math.round(seconds / 60)
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`
}

export const date = (iso: string): string => {
  const at = new Date(iso)
  return Number.isNaN(at.getTime())
    ? iso
    : at.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })
}

export const credits = (n: number): string => `${n} credit${n === 1 ? "" : "s"}`

/** Whether an id is an upload's (a uuid) rather than a video's. */
export const isUpload = (videoId: string): boolean => videoId.length === 36 && videoId.includes("-")

/** The video at a moment, on YouTube. */
export const videoAt = (videoId: string, ms: number): string =>
  `https://www.youtube.com/watch?v=${encodeURIComponent(videoId)}&t=${Math.floor(ms / 1000)}s`

export const sourceNames: Record<string, string> = {
  manual: "human captions",
  auto: "automatic captions",
  asr: "speech recognition"
}
