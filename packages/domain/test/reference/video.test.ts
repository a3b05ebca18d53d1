import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc, Schema } from "effect"
import { VideoId } from "../../src/ids.js"
import { parseVideo, VideoIdFromReference, videoUrl } from "../../src/reference/video.js"
import { dress, playlistId, siteHost, unrelatedText, videoId, videoUrlOf, whitespace } from "./arbitraries.js"

const isVideoId = Schema.is(VideoId)
const reasonOf = (input: string): string | undefined =>
  Either.match(parseVideo(input), { onLeft: (e) => e.reason, onRight: () => undefined })

describe("parseVideo laws", () => {
  it("every URL form of every id parses back to that id", () => {
    fc.assert(
      fc.property(
        videoId.chain((id) => fc.tuple(fc.constant(id), videoUrlOf(id))),
        ([id, url]) => {
          expect(parseVideo(url)).toEqual(Either.right(id))
        }
      ),
      { numRuns: 1000 }
    )
  })

  it("a bare id parses to itself, with surrounding whitespace, and parsing is idempotent", () => {
    fc.assert(
      fc.property(videoId, whitespace, whitespace, (id, before, after) => {
        expect(parseVideo(`${before}${id}${after}`)).toEqual(Either.right(id))
        expect(Either.flatMap(parseVideo(id), parseVideo)).toEqual(Either.right(id))
        expect(parseVideo(videoUrl(id))).toEqual(Either.right(id))
      })
    )
  })

  it("text that is neither an id nor a platform URL is refused with the input and a reason", () => {
    fc.assert(
      fc.property(unrelatedText, (text) => {
        fc.pre(!isVideoId(text.trim()))
        const result = parseVideo(text)
        expect(Either.isLeft(result)).toBe(true)
        if (Either.isLeft(result)) {
          expect(result.left).toMatchObject({ _tag: "InvalidReference", kind: "video", input: text })
          expect(result.left.reason.length).toBeGreaterThan(0)
        }
      })
    )
  })

  it("an id of the wrong length is refused, bare or in a URL", () => {
    const wrongLength = fc.oneof(
      fc.stringMatching(/^[A-Za-z0-9_-]{1,10}$/),
      fc.stringMatching(/^[A-Za-z0-9_-]{12,20}$/)
    )
    fc.assert(
      fc.property(wrongLength, (id) => {
        expect(Either.isLeft(parseVideo(id))).toBe(true)
        expect(Either.isLeft(parseVideo(`https://www.youtube.com/watch?v=${id}`))).toBe(true)
        expect(Either.isLeft(parseVideo(`https://youtu.be/${id}`))).toBe(true)
        expect(Either.isLeft(parseVideo(`youtube.com/shorts/${id}`))).toBe(true)
      })
    )
  })

  it("platform URLs that name no video are refused", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          playlistId.chain((list) => dress(siteHost, "/playlist", [["list", list]])),
          playlistId.chain((list) => dress(siteHost, "/embed/videoseries", [["list", list]])),
          dress(siteHost, "/watch", []),
          dress(siteHost, "/@somebody/videos", []),
          dress(siteHost, "/feed/trending", []),
          videoId.chain((id) => dress(siteHost, `/shorts/${id}/extra`, []))
        ),
        (url) => {
          expect(Either.isLeft(parseVideo(url))).toBe(true)
        }
      )
    )
  })
})

describe("parseVideo examples", () => {
  const id = "dQw4w9WgXcQ"
  it.each([
    "dQw4w9WgXcQ",
    "  dQw4w9WgXcQ\n",
    "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
    "http://youtube.com/watch?v=dQw4w9WgXcQ&t=42s",
    "youtube.com/watch?feature=share&v=dQw4w9WgXcQ#t=1m",
    "m.youtube.com/watch?v=dQw4w9WgXcQ&list=PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG&index=3",
    "https://music.youtube.com/watch?v=dQw4w9WgXcQ&si=abc",
    "https://youtu.be/dQw4w9WgXcQ?si=B_RZg",
    "youtu.be/dQw4w9WgXcQ/",
    "https://www.youtube.com/shorts/dQw4w9WgXcQ",
    "https://www.youtube.com/live/dQw4w9WgXcQ?feature=share",
    "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?start=10",
    "https://www.youtube.com/v/dQw4w9WgXcQ",
    "https://www.youtube.com/e/dQw4w9WgXcQ",
    "//www.youtube.com/watch?v=dQw4w9WgXcQ",
    "HTTPS://WWW.YOUTUBE.COM/watch?v=dQw4w9WgXcQ",
    "https://www.youtube.com./watch?v=dQw4w9WgXcQ"
  ])("accepts %j", (input) => {
    expect(parseVideo(input)).toEqual(Either.right(id))
  })

  it("explains each refusal", () => {
    expect(reasonOf("")).toBe("empty")
    expect(reasonOf("   ")).toBe("empty")
    expect(reasonOf("https://vimeo.com/123")).toBe("vimeo.com is not a YouTube address")
    expect(reasonOf("ftp://youtube.com/watch?v=dQw4w9WgXcQ")).toBe(
      "only http and https URLs are accepted, not ftp:"
    )
    expect(reasonOf("https://youtube.com/watch")).toBe("the v= parameter holds no video id")
    expect(reasonOf("https://youtube.com/watch?v=short")).toBe(
      'the v= parameter "short" is not an 11-character video id'
    )
    expect(reasonOf("https://www.youtube.com/embed/videoseries?list=PL123")).toBe(
      "an embedded playlist is not a video"
    )
    expect(reasonOf("https://youtu.be/dQw4w9WgXcQ/more")).toBe("a youtu.be link has one path segment")
    expect(reasonOf("https://www.youtube.com/playlist?list=PL123")).toMatch(/^not a video URL/)
    expect(reasonOf("not a video")).toBe("neither an id nor a URL")
  })

  it("builds the canonical watch URL", () => {
    expect(videoUrl(VideoId.make(id))).toBe("https://www.youtube.com/watch?v=dQw4w9WgXcQ")
  })
})

describe("VideoIdFromReference", () => {
  it("decodes any URL form to the id and encodes to the bare id", () => {
    fc.assert(
      fc.property(
        videoId.chain((id) => fc.tuple(fc.constant(id), videoUrlOf(id))),
        ([id, url]) => {
          expect(Schema.decodeUnknownEither(VideoIdFromReference)(url)).toEqual(Either.right(id))
          expect(Schema.encodeSync(VideoIdFromReference)(id)).toBe(id)
        }
      )
    )
  })

  it("fails with the reason as its message", () => {
    const result = Schema.decodeUnknownEither(VideoIdFromReference)("https://vimeo.com/1")
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) expect(result.left.message).toContain("vimeo.com is not a YouTube address")
    expect(Either.isLeft(Schema.decodeUnknownEither(VideoIdFromReference)(42))).toBe(true)
  })
})
