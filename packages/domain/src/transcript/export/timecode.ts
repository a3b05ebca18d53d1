/**
 * Timecodes of the export formats. Hours have at least two digits and more when needed (100 hours
 * and beyond print as `100:00:00,000`); minutes and seconds two, milliseconds three.
 * - SRT: `HH:MM:SS,mmm`
 * - WebVTT: `HH:MM:SS.mmm` on output; on input the hours may be left out (`MM:SS.mmm`), as the
 *   WebVTT spec allows.
 * - plain text: `HH:MM:SS`, the seconds rounded down.
 */
import { Option } from "effect"

const pad = (n: number, width: number): string => String(n).padStart(width, "0")

const parts = (ms: number) => {
  const total = Math.max(0, Math.floor(ms))
  return {
    hours: Math.floor(total / 3_600_000),
    minutes: Math.floor(total / 60_000) % 60,
    seconds: Math.floor(total / 1000) % 60,
    millis: total % 1000
  }
}

/** `HH:MM:SS` then the separator and `mmm`. Negative or fractional input is floored at 0. */
export const formatTimecode = (ms: number, separator: "," | "."): string => {
  const { hours, minutes, seconds, millis } = parts(ms)
  return `${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}${separator}${pad(millis, 3)}`
}

/** An SRT timecode, `HH:MM:SS,mmm`. */
export const srtTimecode = (ms: number): string => formatTimecode(ms, ",")

/** A WebVTT timestamp, `HH:MM:SS.mmm`. */
export const vttTimecode = (ms: number): string => formatTimecode(ms, ".")

/** A clock time for plain text, `HH:MM:SS` (seconds rounded down). */
export const clockTimecode = (ms: number): string => {
  const { hours, minutes, seconds } = parts(ms)
  return `${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}`
}

const srtPattern = /^(\d{2,}):(\d{2}):(\d{2}),(\d{3})$/
const vttPattern = /^(?:(\d{2,}):)?(\d{2}):(\d{2})\.(\d{3})$/

/**
 * Reads a timecode of the given format: SRT `HH:MM:SS,mmm`, WebVTT `[HH:]MM:SS.mmm`. Minutes and
 * seconds must be at most 59. None when the text is not such a timecode.
 */
export const parseTimecode = (text: string, format: "srt" | "vtt"): Option.Option<number> => {
  const match = (format === "srt" ? srtPattern : vttPattern).exec(text)
  if (match === null) return Option.none()
  const [hours, minutes, seconds, millis] = [match[1] ?? "0", match[2], match[3], match[4]].map(Number)
  if (
    hours === undefined ||
    minutes === undefined ||
    seconds === undefined ||
    millis === undefined ||
    minutes > 59 ||
    seconds > 59
  ) {
    return Option.none()
  }
  return Option.some(((hours * 60 + minutes) * 60 + seconds) * 1000 + millis)
}
