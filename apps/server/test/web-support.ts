/**
 * What the web library's browser tests share: Debian's headless Chromium (playwright-core), the
 * pages' bundle built as `pnpm install` builds it, a demo catalogue with the shipped videos plus a
 * video whose captions carry markup and script and a three-hour talk, and the folder where
 * screenshots are kept (`apps/server/test-artefacts/web/`, ignored by git).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { shippedCataloguePath } from "@verbatim/demo-platform"
import { Effect } from "effect"
import { type Browser, chromium } from "playwright-core"
import { runCommand } from "./commands.js"
import { repositoryRoot } from "./server-process.js"

export const executablePath = "/usr/bin/chromium"
export const hasChromium = existsSync(executablePath)
export const inCi = process.env.CI === "true"

/** Where screenshots and figures of the web library's tests are kept (ignored by git). */
export const artefacts = fileURLToPath(new URL("../test-artefacts/web/", import.meta.url))

/** The pages' bundle, built when its sources changed (as `pnpm install` and `pnpm start` do). */
export const buildPages = () =>
  runCommand(process.execPath, ["scripts/bundle.mjs", "--if-changed", "web"], { cwd: repositoryRoot })

/** Captions written by someone hostile: markup, script, event handlers, a `javascript:` URL. */
export const hostileLines = [
  "<script>window.__pwned = 'script'</script> hello",
  "<img src=x onerror=\"window.__pwned = 'img'\"> look",
  '"><svg onload="window.__pwned = \'svg\'"></svg>',
  "<a href=\"javascript:window.__pwned='link'\">click me</a>",
  '</textarea></title><iframe src="javascript:alert(1)"></iframe>',
  "&lt;b&gt;entities stay as written&lt;/b&gt; & <b>bold</b>"
] as const

export const hostileVideo = "Ev1lCapt10n"
export const longVideo = "L0ngTalk3hr"
/** Segments of the three-hour talk: one every two seconds. */
export const longSegments = 5400

/** The shipped catalogue with the hostile video and the long talk added, as a file. */
export const testCatalogue = (): string => {
  const shipped = JSON.parse(readFileSync(shippedCataloguePath, "utf8")) as {
    videos: Array<Record<string, unknown>>
  }
  const folder = dirname(shippedCataloguePath)
  const written = mkdtempSync(join(tmpdir(), "verbatim-web-catalogue-"))
  // Media paths are relative to the catalogue: made relative to where this one is written.
  for (const video of shipped.videos) {
    if (typeof video.media === "string") video.media = relative(written, resolve(folder, video.media))
  }
  const track = (segments: ReadonlyArray<{ text: string; start: number; end: number }>) => [
    { language: "en", kind: "manual", name: "English", segments }
  ]
  shipped.videos.push({
    id: hostileVideo,
    title: "<script>window.__pwned='title'</script>A talk <b>about</b> escaping",
    duration_seconds: 30,
    channel_id: "UCn7Wq2LxT9bKd3Rv8MpZs1A",
    published_at: "2025-05-01T10:00:00Z",
    original_language: "en",
    translation_languages: ["de"],
    caption_tracks: track(hostileLines.map((text, i) => ({ text, start: i * 4000, end: i * 4000 + 3500 })))
  })
  shipped.videos.push({
    id: longVideo,
    title: "A three-hour workshop on archives",
    duration_seconds: longSegments * 2,
    channel_id: "UCn7Wq2LxT9bKd3Rv8MpZs1A",
    published_at: "2025-06-01T10:00:00Z",
    original_language: "en",
    translation_languages: [],
    caption_tracks: track(
      Array.from({ length: longSegments }, (_, i) => ({
        text:
          i === longSegments - 10
            ? "The final word is serendipity."
            : `Segment ${i + 1} of the workshop on archives.`,
        start: i * 2000,
        end: i * 2000 + 1900
      }))
    )
  })
  const file = join(written, "catalogue.json")
  writeFileSync(file, JSON.stringify(shipped))
  return file
}

/** Headless Chromium as the project runs it here (see consent-browser.test.ts). */
export const browser = Effect.acquireRelease(
  Effect.promise(() =>
    chromium.launch({
      executablePath,
      headless: true,
      args: [
        "--no-sandbox",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run"
      ]
    })
  ),
  (b: Browser) => Effect.promise(() => b.close())
)

/** Makes the artefacts folder. */
export const artefactsFolder = (): string => {
  mkdirSync(artefacts, { recursive: true })
  return artefacts
}
