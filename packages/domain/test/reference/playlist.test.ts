import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc, Schema } from "effect"
import { PlaylistId } from "../../src/ids.js"
import { PlaylistIdFromReference, parsePlaylist, playlistUrl } from "../../src/reference/playlist.js"
import {
  dress,
  playlistId,
  playlistUrlOf,
  siteHost,
  unrelatedText,
  videoId,
  whitespace
} from "./arbitraries.js"

const isPlaylistId = Schema.is(PlaylistId)
const reasonOf = (input: string): string | undefined =>
  Either.match(parsePlaylist(input), { onLeft: (e) => e.reason, onRight: () => undefined })

describe("parsePlaylist laws", () => {
  it("every URL form of every id parses back to that id", () => {
    fc.assert(
      fc.property(
        playlistId.chain((id) => fc.tuple(fc.constant(id), playlistUrlOf(id))),
        ([id, url]) => {
          expect(parsePlaylist(url)).toEqual(Either.right(id))
        }
      ),
      { numRuns: 1000 }
    )
  })

  it("a bare id parses to itself, and parsing is idempotent", () => {
    fc.assert(
      fc.property(playlistId, whitespace, whitespace, (id, before, after) => {
        expect(parsePlaylist(`${before}${id}${after}`)).toEqual(Either.right(id))
        expect(Either.flatMap(parsePlaylist(id), parsePlaylist)).toEqual(Either.right(id))
        expect(parsePlaylist(playlistUrl(id))).toEqual(Either.right(id))
      })
    )
  })

  it("text that is neither an id nor a platform URL is refused", () => {
    fc.assert(
      fc.property(unrelatedText, (text) => {
        fc.pre(!isPlaylistId(text.trim()))
        const result = parsePlaylist(text)
        expect(Either.isLeft(result)).toBe(true)
        if (Either.isLeft(result)) expect(result.left).toMatchObject({ kind: "playlist", input: text })
      })
    )
  })

  it("platform URLs without a list= parameter are refused", () => {
    fc.assert(
      fc.property(
        videoId.chain((v) =>
          fc.oneof(dress(siteHost, "/watch", [["v", v]]), dress(siteHost, `/shorts/${v}`, []))
        ),
        (url) => {
          expect(reasonOf(url)).toBe("the URL has no list= parameter")
        }
      )
    )
  })
})

describe("parsePlaylist examples", () => {
  it.each([
    ["PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG", "PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG"],
    [
      "https://www.youtube.com/playlist?list=PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG",
      "PLx0sYbCqOb8TBPRdmBHs5Iftvv9TPboYG"
    ],
    ["youtube.com/watch?v=dQw4w9WgXcQ&list=OLAK5uy_abc&index=2", "OLAK5uy_abc"],
    ["https://youtu.be/dQw4w9WgXcQ?list=RDdQw4w9WgXcQ", "RDdQw4w9WgXcQ"],
    ["https://music.youtube.com/playlist?list=PL123&si=x", "PL123"]
  ])("accepts %j", (input, id) => {
    expect(parsePlaylist(input)).toEqual(Either.right(id))
  })

  it("explains each refusal", () => {
    expect(reasonOf("")).toBe("empty")
    expect(reasonOf("https://www.youtube.com/playlist?list=")).toBe("the URL has no list= parameter")
    expect(reasonOf("https://www.youtube.com/playlist?list=a%20b")).toBe(
      'the list= parameter "a b" is not a playlist id'
    )
    expect(reasonOf("https://example.com/playlist?list=PL123")).toBe("example.com is not a YouTube address")
  })

  it("builds the canonical playlist URL", () => {
    expect(playlistUrl(PlaylistId.make("PL123"))).toBe("https://www.youtube.com/playlist?list=PL123")
  })

  it("decodes as a schema and encodes to the bare id", () => {
    const decode = Schema.decodeUnknownEither(PlaylistIdFromReference)
    expect(decode("https://www.youtube.com/playlist?list=PL123")).toEqual(Either.right("PL123"))
    expect(Either.isLeft(decode("https://www.youtube.com/watch?v=dQw4w9WgXcQ"))).toBe(true)
    expect(Schema.encodeSync(PlaylistIdFromReference)(PlaylistId.make("PL123"))).toBe("PL123")
  })
})
