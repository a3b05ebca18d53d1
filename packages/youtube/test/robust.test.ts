/**
 * Robust by construction: over every recorded and hand-made JSON answer, what the
 * adapter reads is the same when the keys of every object are shuffled, when unknown siblings
 * (extra renderers, extra continuation tokens, extra metadata rows) are inserted outside the
 * places it reads, and when arrays of renderers grow with renderers it does not know. And no
 * answer, however odd, reaches a caller as a 500.
 */
import { existsSync, readdirSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { collectPlaylist, collectUploads, type PlatformError, VideoPlatform } from "@verbatim/core"
import type { Ids } from "@verbatim/domain"
import { Cause, Effect, Either, Exit, FastCheck as fc, Option, Runtime } from "effect"
import { chooseAudio } from "../src/audio.js"
import {
  channelAgeGate,
  channelHead,
  errorAlert,
  listPage,
  playlistHead,
  resolvedChannel
} from "../src/browse.js"
import { parseCaptions } from "../src/captions.js"
import { parsePlayer, playability, videoRecord } from "../src/player.js"
import { fixture, fixturePath, recordedCollections } from "../src/testing.js"
import { answered, at, vid, withPlatform } from "./support.js"

type Json = unknown

// ---------------------------------------------------------------------------------------------
// What the adapter reads of an answer: the same functions the platform composes.

const readPlayer = (body: string) =>
  Either.flatMap(parsePlayer(body), (player) =>
    Either.map(playability(player, "GJLlxj_dtq8"), () => {
      const record = videoRecord(player, vid("GJLlxj_dtq8"))
      return {
        details: record.details,
        tracks: record.tracks,
        audio: chooseAudio(record.formats, record.details.originalLanguage)
      }
    })
  )

const readBrowse = (answer: Json) => {
  const externalId = (answer as { metadata?: { channelMetadataRenderer?: { externalId?: string } } }).metadata
    ?.channelMetadataRenderer?.externalId
  return {
    list: listPage(answer),
    playlist: playlistHead(answer),
    channel: channelHead(answer, (externalId ?? recordedCollections.channel.id) as Ids.ChannelId),
    alert: errorAlert(answer),
    gate: channelAgeGate(answer),
    resolved: resolvedChannel(answer)
  }
}

const readCaptions = (answer: Json) => parseCaptions(JSON.stringify(answer), { rolling: false })

const jsonFixtures = (folder: string) =>
  readdirSync(fixturePath(folder))
    .filter((name) => /\.(json|json3|innertube\.json\.static)$/.test(name) && name !== "manifest.json")
    .map((name) => `${folder}/${name}`)

/** The folders of `pnpm --filter @verbatim/youtube record` (README, "Recording fresh answers"). */
const recordedLive = existsSync(fixturePath("recorded-live"))
  ? readdirSync(fixturePath("recorded-live")).flatMap((dir) =>
      jsonFixtures(`recorded-live/${dir}`).filter((name) =>
        /\/(player|browse|resolve_url|timedtext)_/.test(name)
      )
    )
  : []

const all = [...jsonFixtures("recorded"), ...jsonFixtures("hand-made"), ...recordedLive].filter((name) => {
  try {
    return typeof JSON.parse(fixture(name)) === "object"
  } catch {
    return false
  }
})

const readerOf = (name: string): ((answer: Json) => unknown) =>
  /innertube\.json\.static$|\/player_/.test(name)
    ? (answer) => readPlayer(JSON.stringify(answer))
    : name.endsWith(".json3")
      ? readCaptions
      : readBrowse

// ---------------------------------------------------------------------------------------------
// The changes: a seeded generator so that every run is reproducible from fast-check's seed.

const random = (seed: number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const isObject = (value: Json): value is Record<string, Json> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Every object rebuilt with its keys in another order. */
const shuffled = (value: Json, next: () => number): Json => {
  if (Array.isArray(value)) return value.map((item) => shuffled(item, next))
  if (!isObject(value)) return value
  const keys = Object.keys(value)
  for (let i = keys.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1))
    ;[keys[i], keys[j]] = [keys[j] as string, keys[i] as string]
  }
  return Object.fromEntries(keys.map((key) => [key, shuffled(value[key], next)]))
}

/** Names the adapter reads nowhere. */
const unknownKeys = [
  "feedNudgeRenderer",
  "adSlotRenderer",
  "engagementPanelSectionListRenderer",
  "brandVideoShelfRenderer",
  "zzSomethingNewViewModel",
  "loggingDirectives"
] as const

/** What YouTube may put next to what the adapter reads: tokens, metadata rows, other renderers. */
const junk = (next: () => number): Json => {
  const n = Math.floor(next() * 1_000_000)
  const choices: ReadonlyArray<() => Json> = [
    () => ({
      continuationItemRenderer: {
        continuationEndpoint: { continuationCommand: { token: `junk-token-${n}` } }
      }
    }),
    () => ({
      sectionListRenderer: {
        contents: [{ itemSectionRenderer: { contents: [{ continuationItemRenderer: { token: `t${n}` } }] } }]
      }
    }),
    () => ({
      contentMetadataViewModel: {
        metadataRows: [
          { metadataParts: [{ text: { content: `${n} views` } }, { text: { content: "13 days ago" } }] },
          { metadataParts: [{ text: { content: `${n} subscribers` } }, { text: { content: `${n} videos` } }] }
        ]
      }
    }),
    () => ({ thumbnailBadgeViewModel: { text: "9:59" } }),
    () => ({
      metadataRowRenderer: { title: { simpleText: "Licence" }, contents: [{ runs: [{ text: "x" }] }] }
    }),
    () => ({ alertRenderer: { type: "INFO", text: { simpleText: "Unavailable videos are hidden" } } }),
    () => `junk ${n}`,
    () => n
  ]
  return (choices[Math.floor(next() * choices.length)] as () => Json)()
}

const pick = <A>(items: ReadonlyArray<A>, next: () => number): A =>
  items[Math.floor(next() * items.length)] as A

/** Inserts unknown keys, with junk under them, into objects anywhere. */
const withSiblings = (value: Json, next: () => number, rate: number): Json => {
  if (Array.isArray(value)) return value.map((item) => withSiblings(item, next, rate))
  if (!isObject(value)) return value
  const copy: Record<string, Json> = {}
  for (const key of Object.keys(value)) copy[key] = withSiblings(value[key], next, rate)
  if (next() < rate) {
    const key = pick(unknownKeys, next)
    if (!(key in copy)) copy[key] = junk(next)
  }
  return copy
}

/** `[{fooRenderer: …}, …]`: an array of renderers, each one key naming what it is. */
const isRendererArray = (value: ReadonlyArray<Json>): boolean =>
  value.length > 0 &&
  value.every(
    (item) =>
      isObject(item) &&
      Object.keys(item).length === 1 &&
      /(Renderer|ViewModel|Action|Command)$/.test(Object.keys(item)[0] as string)
  )

/** Grows arrays of renderers with renderers the adapter does not know. */
const withGrownArrays = (value: Json, next: () => number, rate: number): Json => {
  if (isObject(value)) {
    return Object.fromEntries(Object.keys(value).map((key) => [key, withGrownArrays(value[key], next, rate)]))
  }
  if (!Array.isArray(value)) return value
  const items = value.map((item) => withGrownArrays(item, next, rate))
  if (isRendererArray(value) && next() < rate) {
    const count = 1 + Math.floor(next() * 3)
    for (let i = 0; i < count; i++) {
      items.splice(Math.floor(next() * (items.length + 1)), 0, { [pick(unknownKeys, next)]: junk(next) })
    }
  }
  return items
}

const changes = {
  "the keys of every object shuffled": (answer: Json, seed: number) => shuffled(answer, random(seed)),
  "unknown siblings inserted outside the paths it reads": (answer: Json, seed: number) =>
    withSiblings(answer, random(seed), 0.3),
  "arrays of renderers grown with unknown renderers": (answer: Json, seed: number) =>
    withGrownArrays(answer, random(seed), 0.7),
  "all three at once": (answer: Json, seed: number) => {
    const next = random(seed)
    return shuffled(withGrownArrays(withSiblings(answer, next, 0.3), next, 0.7), next)
  }
} as const

describe("every recorded and hand-made answer reads the same", () => {
  it("covers every JSON fixture of the package", () => {
    expect(all.length).toBeGreaterThanOrEqual(20)
    expect(all).toContain("hand-made/browse_videos_tab_page1.hand-made.json")
    expect(all).toContain("recorded/youtube.innertube.json.static")
  })

  for (const [change, apply] of Object.entries(changes)) {
    it(`with ${change}`, () => {
      for (const name of all) {
        const answer: Json = JSON.parse(fixture(name))
        const read = readerOf(name)
        const expected = read(answer)
        fc.assert(
          fc.property(fc.integer(), (seed) => {
            expect(read(apply(answer, seed)), `${name}, seed ${seed}`).toEqual(expected)
          }),
          { numRuns: 25 }
        )
      }
    }, 30_000)
  }

  it("the changes do change the documents (a property that cannot fail proves nothing)", () => {
    const answer: Json = JSON.parse(fixture("hand-made/browse_videos_tab_page1.hand-made.json"))
    const text = JSON.stringify(answer)
    for (const apply of Object.values(changes)) {
      expect(JSON.stringify(apply(answer, 7))).not.toBe(text)
    }
  })
})

describe("no answer reaches a caller as a 500", () => {
  const failureOf = <A, E>(exit: Exit.Exit<A, E>) =>
    Exit.match(exit, {
      onSuccess: () => null,
      onFailure: (cause) => Option.getOrNull(Cause.failureOption(cause))
    })

  const everyEndpoint = (platform: VideoPlatform["Type"]) =>
    Effect.all(
      (
        [
          platform.video(vid("GJLlxj_dtq8")),
          platform.channel({ _tag: "Id", id: recordedCollections.longChannel.id as Ids.ChannelId }),
          collectUploads(recordedCollections.longChannel.id as Ids.ChannelId, 100),
          collectPlaylist(recordedCollections.playlist as Ids.PlaylistId, 100)
        ] as ReadonlyArray<Effect.Effect<unknown, PlatformError, VideoPlatform>>
      ).map((effect) =>
        Effect.exit(Effect.provideService(effect, VideoPlatform, platform)).pipe(
          Effect.map((exit) => {
            // Never a defect: every way it ends is a typed failure or a success.
            expect(Exit.isFailure(exit) && !Cause.isFailType(exit.cause) && Cause.isDie(exit.cause)).toBe(
              false
            )
            return failureOf(exit)
          })
        )
      )
    )

  it.effect(
    "any JSON, or any text, as every /player and browse answer: a documented code, never 500",
    () =>
      Effect.flatMap(Effect.runtime<never>(), (runtime) =>
        Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(
              fc.oneof(
                fc.json({ maxDepth: 4 }),
                fc.string(),
                fc.constant("{}"),
                fc.constant('{"contents":{}}')
              ),
              (body) =>
                // On the test's runtime, so the adapter runs on the test clock too.
                Runtime.runPromise(runtime)(
                  withPlatform(
                    (platform) =>
                      Effect.map(everyEndpoint(platform), (failures) => {
                        for (const failure of failures) {
                          if (failure === null) continue
                          const [, code, status] = answered(failure)
                          expect(status, `${code} for ${body}`).not.toBe(500)
                        }
                      }),
                    [at("/youtubei/v1/player", () => ({ body })), at("/youtubei/v1/browse", () => ({ body }))]
                  )
                )
            ),
            { numRuns: 40 }
          )
        )
      ),
    30_000
  )
})
