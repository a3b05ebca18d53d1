/**
 * The record command's parts (`src/recording.ts`; the command itself needs internet access): the
 * scrubber is a pure function that leaves nothing identifying in a recording, and a recording
 * made through the adapter replays to the same answers.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { collectPlaylist, collectUploads, VideoPlatform } from "@verbatim/core"
import type { Ids } from "@verbatim/domain"
import { Effect, Either, FastCheck as fc } from "effect"
import {
  fileNameOf,
  readRecording,
  recordTargets,
  scrub,
  targetOf,
  writeRecording
} from "../src/recording.js"
import {
  fixture,
  fixturePath,
  recordedCollections,
  recordedVideos,
  recordedYouTube,
  replayFetch,
  replayLayer,
  testSettings
} from "../src/testing.js"

const ip4 = /\b(?!0\.0\.0\.0\b)\d{1,3}(\.\d{1,3}){3}\b/
const ip6 = /\b(?!0:0:0:0:0\b)([0-9a-f]{1,4}(:|%3A)){4,7}[0-9a-f]{1,4}\b/i

describe("the scrubber", () => {
  it("removes visitor data, session tokens, cookies, IP addresses and media signatures", () => {
    const answer = JSON.stringify({
      responseContext: { visitorData: "CgtYWjEyMzQ1Njc4OSiAgICA", serviceTrackingParams: [] },
      trackingParams: "CAAQhGciEwj",
      streamingData: {
        adaptiveFormats: [
          {
            url: "https://rr4---sn-x.googlevideo.com/videoplayback?expire=1&ei=xp1JaMf&ip=2a02%3A908%3A1991%3A1ec0%3A9%3A870c%3Aa854%3A53fe&id=o-AM&sig=AJfQdSsw&pot=MnTo&itag=140"
          }
        ]
      },
      note: "from 192.168.10.44 and 2001:db8:85a3:0:0:8a2e:370:7334",
      continuation: "4qmFsgKrCBIYVUNWWWFtSGxpQ0k5cnc",
      videoId: "GJLlxj_dtq8"
    })
    const clean = scrub(answer)
    const read = JSON.parse(clean) as Record<string, unknown>
    expect(read).toMatchObject({
      responseContext: { visitorData: "SCRUBBED" },
      trackingParams: "SCRUBBED",
      note: "from 0.0.0.0 and 0:0:0:0:0",
      continuation: "4qmFsgKrCBIYVUNWWWFtSGxpQ0k5cnc",
      videoId: "GJLlxj_dtq8"
    })
    expect(clean).toContain("expire=1&ei=SCRUBBED&ip=SCRUBBED&id=o-AM&sig=SCRUBBED&pot=SCRUBBED&itag=140")
    expect(clean).not.toMatch(ip4)
    expect(clean).not.toMatch(ip6)

    const page = `<script>ytcfg.set({"INNERTUBE_API_KEY":"AIzaSyA8eiZmM1F","VISITOR_DATA":"Cgt2"});
var u = "https://x.googlevideo.com/videoplayback?a=1\\u0026ip=81.2.69.142\\u0026sig=ABC";</script>
Set-Cookie: VISITOR_INFO1_LIVE=abc; YSC=def
cookie: CONSENT=YES+cb`
    const cleanPage = scrub(page)
    expect(cleanPage).toContain('"INNERTUBE_API_KEY":"SCRUBBED","VISITOR_DATA":"SCRUBBED"')
    expect(cleanPage).toContain("\\u0026ip=SCRUBBED\\u0026sig=SCRUBBED")
    expect(cleanPage).toContain("Set-Cookie: SCRUBBED\ncookie: SCRUBBED")
    expect(cleanPage).not.toContain("81.2.69.142")
  })

  it("keeps every recorded answer valid, is idempotent, and leaves no IP address in them", () => {
    const files = readdirSync(fixturePath("recorded")).filter((f) => f.endsWith(".static"))
    expect(files.length).toBeGreaterThan(10)
    for (const file of files) {
      const text = fixture(`recorded/${file}`)
      const clean = scrub(text)
      expect(scrub(clean), file).toBe(clean)
      expect(clean, file).not.toMatch(/[?&]ip=\d/)
      expect(clean, file).not.toMatch(ip4)
      if (file.includes(".json.")) expect(() => JSON.parse(clean), file).not.toThrow()
    }
    // The recorded /player answers did carry the recorder's address.
    expect(fixture("recorded/youtube.innertube.json.static")).toMatch(/[?&]ip=2a02/)
  })

  it("is idempotent on any text", () =>
    fc.assert(
      fc.property(fc.string(), fc.ipV4(), fc.ipV6(), (text, a, b) => {
        const once = scrub(`${text} ${a} ${b} {"visitorData":"${text.replace(/["\\]/g, "")}"}`)
        expect(scrub(once)).toBe(once)
        expect(once).not.toContain(` ${a} `)
      })
    ))
})

describe("a recording", () => {
  it("names each answer by what it is", () => {
    const post = (path: string, body: object) => ({
      url: `https://www.youtube.com${path}`,
      body: JSON.stringify(body)
    })
    expect(fileNameOf(post("/youtubei/v1/player", { videoId: "GJLlxj_dtq8" }), 1)).toBe(
      "player_GJLlxj_dtq8.json"
    )
    expect(fileNameOf(post("/youtubei/v1/browse", { browseId: "VLPLx" }), 2)).toBe("browse_VLPLx.json")
    expect(fileNameOf(post("/youtubei/v1/browse", { continuation: "abc" }), 3)).toBe(
      "browse_continuation_3.json"
    )
    expect(
      fileNameOf(
        { url: "https://www.youtube.com/api/timedtext?v=abc&lang=en&kind=asr&fmt=json3", body: "" },
        4
      )
    ).toBe("timedtext_abc_en_asr.json3")
    expect(Either.map(targetOf("https://youtu.be/GJLlxj_dtq8"), (t) => t._tag)).toEqual(Either.right("Video"))
    expect(
      Either.map(targetOf("https://www.youtube.com/playlist?list=PLhandMadeReplayList"), (t) => t._tag)
    ).toEqual(Either.right("Playlist"))
    expect(Either.map(targetOf("https://www.youtube.com/@Dave2D"), (t) => t._tag)).toEqual(
      Either.right("Channel")
    )
    expect(Either.isLeft(targetOf("not a url at all!"))).toBe(true)
  })

  it.effect(
    "made through the adapter, written and read back, replays to the same answers with nothing unmatched",
    () =>
      Effect.gen(function* () {
        const live = replayFetch(recordedYouTube())
        const targets = [
          "GJLlxj_dtq8",
          "https://www.youtube.com/playlist?list=PLhandMadeReplayList",
          "@Dave2D"
        ].map((input) => Either.getOrThrow(targetOf(input)))
        const exchanges = yield* recordTargets(targets, live.fetch, testSettings)
        const dir = mkdtempSync(join(tmpdir(), "verbatim-record-"))
        yield* writeRecording(dir, exchanges)
        const files = readdirSync(dir)
        expect(files).toContain("manifest.json")
        expect(files).toContain("player_GJLlxj_dtq8.json")
        expect(files).toContain("browse_VLPLhandMadeReplayList.json")
        for (const file of files)
          expect(readFileSync(join(dir, file), "utf8"), file).not.toMatch(/[?&]ip=2a02/)

        const replay = replayFetch(readRecording(dir))
        const channel = recordedCollections.channel.id as Ids.ChannelId
        const read = Effect.gen(function* () {
          const platform = yield* VideoPlatform
          const video = yield* platform.video(recordedVideos.captioned as Ids.VideoId)
          const captions = yield* Effect.forEach(video.captionTracks, (track) =>
            Effect.either(platform.captions(recordedVideos.captioned as Ids.VideoId, track))
          )
          const playlist = yield* collectPlaylist(recordedCollections.playlist as Ids.PlaylistId, 500)
          const uploads = yield* collectUploads(channel, 500)
          return { video, captions, playlist, uploads }
        })
        const recorded = yield* Effect.provide(read, replayLayer(replay))
        const original = yield* Effect.provide(read, replayLayer(replayFetch(recordedYouTube())))
        expect(recorded).toEqual(original)
        expect(replay.unmatched).toEqual([])
      })
  )
})
