/**
 * Test support: the shipped clips (`packages/demo-platform/media`), inputs made from files, the
 * word error rate, and the gate of the tests that need the Debian packages (they fail under
 * `CI=true` when the engine is missing, and are skipped with the reason otherwise).
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { it } from "@effect/vitest"
import type { AudioInput } from "@verbatim/core"
import { Effect, Option, Stream } from "effect"
import { expect } from "vitest"
import { detectWith, PocketsphinxConfig, type PocketsphinxSettings } from "../src/index.js"

export const mediaDir = fileURLToPath(new URL("../../demo-platform/media/", import.meta.url))

export interface Clip {
  readonly name: string
  readonly file: string
  readonly text: string
  readonly durationMs: number
  readonly contentWords: ReadonlyArray<string>
}

/** The shipped clips and what they say (as `packages/demo-platform/media/README.md` lists them). */
export const clips: ReadonlyArray<Clip> = [
  {
    name: "welcome",
    file: join(mediaDir, "welcome.wav"),
    text: "Welcome to Verbatim. This is a short test of speech recognition on a small computer.",
    durationMs: 4955,
    contentWords: ["welcome", "verbatim", "short", "test", "speech", "recognition", "small", "computer"]
  },
  {
    name: "kitchen",
    file: join(mediaDir, "kitchen.wav"),
    text: "Please put the green apples in the basket on the kitchen table. Then close the door.",
    durationMs: 4841,
    contentWords: ["please", "green", "apples", "basket", "kitchen", "table", "close", "door"]
  },
  {
    name: "library",
    file: join(mediaDir, "library.wav"),
    text: "The library opens at nine in the morning and closes at six in the evening.",
    durationMs: 5180,
    contentWords: ["library", "opens", "nine", "morning", "closes", "six", "evening"]
  }
]

export const clip = (name: string): Clip => {
  const found = clips.find((c) => c.name === name)
  if (found === undefined) throw new Error(`no clip ${name}`)
  return found
}

/** A file as an input, streamed in chunks of 16 kB (read when the stream runs). */
export const fileInput = (
  file: string,
  mimeType = "audio/wav",
  durationSeconds: number | null = null
): AudioInput => ({
  name: `file ${file}`,
  mimeType,
  contentLength: null,
  durationSeconds,
  bytes: Stream.suspend(() => {
    const bytes = new Uint8Array(readFileSync(file))
    const chunks: Array<Uint8Array> = []
    for (let at = 0; at < bytes.length; at += 16_384) chunks.push(bytes.subarray(at, at + 16_384))
    return Stream.fromIterable(chunks)
  })
})

export const bytesInput = (bytes: Uint8Array, mimeType = "audio/wav"): AudioInput => ({
  name: "bytes",
  mimeType,
  contentLength: bytes.length,
  durationSeconds: null,
  bytes: Stream.make(bytes)
})

const words = (text: string): ReadonlyArray<string> => text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []

/** Word error rate: (substitutions + deletions + insertions) / words of the reference. */
export const wordErrorRate = (reference: string, hypothesis: string): number => {
  const r = words(reference)
  const h = words(hypothesis)
  let previous = Array.from({ length: h.length + 1 }, (_, j) => j)
  for (let i = 1; i <= r.length; i++) {
    const row = [i]
    for (let j = 1; j <= h.length; j++) {
      row[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (r[i - 1] === h[j - 1] ? 0 : 1)
      )
    }
    previous = row
  }
  return (previous[h.length] ?? 0) / Math.max(1, r.length)
}

/** A fresh directory for a test, removed by the returned function. */
export const scratch = (prefix: string): { readonly dir: string; readonly remove: () => void } => {
  const dir = mkdtempSync(join(tmpdir(), `verbatim-${prefix}-`))
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

export const listDir = (dir: string): ReadonlyArray<string> => readdirSync(dir)

/** Processes whose command line mentions `text` (read from /proc). */
export const processesMentioning = (text: string): ReadonlyArray<string> =>
  readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .flatMap((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ")
        return cmdline.includes(text) ? [`${pid}: ${cmdline}`] : []
      } catch {
        return []
      }
    })

/** Runs ffmpeg to make a test input (ffmpeg is one of the engine's packages). */
export const ffmpeg = (...args: ReadonlyArray<string>): void => {
  execFileSync("ffmpeg", ["-nostdin", "-hide_banner", "-loglevel", "error", "-y", ...args], { stdio: "pipe" })
}

/** The settings of the environment (`VERBATIM_POCKETSPHINX_*`), so the tests run what the service would. */
export const baseSettings: PocketsphinxSettings = await Effect.runPromise(PocketsphinxConfig)

export const settingsWith = (overrides: Partial<PocketsphinxSettings>): PocketsphinxSettings => ({
  ...baseSettings,
  ...overrides
})

export const inTmp = (dir: string): PocketsphinxSettings => settingsWith({ tmpDir: Option.some(dir) })

const detection = await Effect.runPromise(detectWith(baseSettings))

/** Whether the Debian packages are installed here. */
export const engineInstalled = detection._tag === "Installed"

/**
 * Registers the tests `body` defines when the engine is installed; otherwise one test that fails
 * under CI (the packages are part of the set-up) or is skipped with the reason.
 */
export const whenInstalled = (body: () => void): void => {
  if (detection._tag === "Installed") {
    body()
  } else if (process.env.CI === "true") {
    it("pocketsphinx is installed (CI runs scripts/install-speech.sh)", () => {
      expect.fail(detection.reason)
    })
  } else {
    it.skip(`skipped, pocketsphinx is not installed: ${detection.reason}`, () => {})
  }
}
