import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc, Schema } from "effect"
import { ChannelHandle, ChannelId } from "../../src/ids.js"
import {
  ChannelRef,
  ChannelRefFromReference,
  channelByHandle,
  channelById,
  channelUrl,
  formatChannel,
  parseChannel
} from "../../src/reference/channel.js"
import {
  anyCase,
  channelHandle,
  channelId,
  channelIdUrlOf,
  channelTab,
  dress,
  handleUrlOf,
  legacyName,
  scheme,
  siteHost,
  unrelatedText,
  videoId,
  whitespace
} from "./arbitraries.js"

const isChannelId = Schema.is(ChannelId)
const isHandle = Schema.is(ChannelHandle)
const reasonOf = (input: string): string | undefined =>
  Either.match(parseChannel(input), { onLeft: (e) => e.reason, onRight: () => undefined })

const channelRef = Schema.typeSchema(ChannelRef)
const anyRef = fc.oneof(
  channelId.map(channelById),
  channelHandle.map(channelByHandle),
  fc
    .record({ path: fc.constantFrom("c" as const, "user" as const), name: legacyName })
    .map(({ name, path }): ChannelRef => ({ _tag: "LegacyName", path, name }))
)

describe("parseChannel laws", () => {
  it("every URL form of a channel id parses back to that id", () => {
    fc.assert(
      fc.property(
        channelId.chain((id) => fc.tuple(fc.constant(id), channelIdUrlOf(id))),
        ([id, url]) => {
          expect(parseChannel(url)).toEqual(Either.right(channelById(id)))
        }
      ),
      { numRuns: 500 }
    )
  })

  it("every URL form of a handle parses back to that handle", () => {
    fc.assert(
      fc.property(
        channelHandle.chain((h) => fc.tuple(fc.constant(h), handleUrlOf(h))),
        ([handle, url]) => {
          expect(parseChannel(url)).toEqual(Either.right(channelByHandle(handle)))
        }
      ),
      { numRuns: 500 }
    )
  })

  it("legacy /c/ and /user/ URLs parse to a legacy name, never to a handle", () => {
    const legacyUrl = fc
      .record({ name: legacyName, path: fc.constantFrom("c" as const, "user" as const), tab: channelTab })
      .chain((r) =>
        fc.tuple(
          fc.constant(r),
          anyCase(r.path).chain((p) => dress(siteHost, `/${p}/${r.name}${r.tab}`, []))
        )
      )
    fc.assert(
      fc.property(legacyUrl, ([{ name, path }, url]) => {
        expect(parseChannel(url)).toEqual(Either.right({ _tag: "LegacyName", path, name }))
      })
    )
  })

  it("a bare handle parses with or without @; a bare UC id is an id, and @ always means a handle", () => {
    fc.assert(
      fc.property(channelHandle, whitespace, whitespace, (handle, before, after) => {
        expect(parseChannel(`${before}@${handle}${after}`)).toEqual(Either.right(channelByHandle(handle)))
        expect(parseChannel(`${before}${handle}${after}`)).toEqual(
          Either.right(isChannelId(handle) ? channelById(handle) : channelByHandle(handle))
        )
      })
    )
    fc.assert(
      fc.property(channelId, (id) => {
        expect(parseChannel(id)).toEqual(Either.right(channelById(id)))
      })
    )
  })

  it("every reference survives formatChannel and channelUrl, and parsing is idempotent", () => {
    fc.assert(
      fc.property(anyRef, (ref) => {
        expect(parseChannel(formatChannel(ref))).toEqual(Either.right(ref))
        expect(parseChannel(channelUrl(ref))).toEqual(Either.right(ref))
        expect(Schema.is(channelRef)(ref)).toBe(true)
      })
    )
  })

  it("text that is neither an id, a handle nor a platform URL is refused", () => {
    fc.assert(
      fc.property(unrelatedText, (text) => {
        const t = text.trim()
        fc.pre(!isChannelId(t) && !isHandle(t) && !(t.startsWith("@") && isHandle(t.slice(1))))
        const result = parseChannel(text)
        expect(Either.isLeft(result)).toBe(true)
        if (Either.isLeft(result)) expect(result.left).toMatchObject({ kind: "channel", input: text })
      })
    )
  })

  it("video links are not channels", () => {
    fc.assert(
      fc.property(videoId, scheme, (id, s) => {
        expect(Either.isLeft(parseChannel(`${s}youtu.be/${id}`))).toBe(true)
        expect(Either.isLeft(parseChannel(`${s}www.youtube.com/watch?v=${id}`))).toBe(true)
      })
    )
  })
})

describe("parseChannel examples", () => {
  const id = "UCuAXFkgsw1L7xaCfnd5JJOw"
  it.each([
    [id, channelById(ChannelId.make(id))],
    [`https://www.youtube.com/channel/${id}`, channelById(ChannelId.make(id))],
    [`youtube.com/channel/${id}/videos?view=0`, channelById(ChannelId.make(id))],
    ["@MrBeast", channelByHandle(ChannelHandle.make("MrBeast"))],
    ["MrBeast", channelByHandle(ChannelHandle.make("MrBeast"))],
    ["https://www.youtube.com/@MrBeast/videos", channelByHandle(ChannelHandle.make("MrBeast"))],
    ["https://m.youtube.com/@some.one-x_y", channelByHandle(ChannelHandle.make("some.one-x_y"))],
    [
      "https://www.youtube.com/c/GoogleDevelopers",
      { _tag: "LegacyName", path: "c", name: "GoogleDevelopers" }
    ],
    ["https://www.youtube.com/user/Google/videos", { _tag: "LegacyName", path: "user", name: "Google" }]
  ])("accepts %j", (input, ref) => {
    expect(parseChannel(input)).toEqual(Either.right(ref))
  })

  it("explains each refusal", () => {
    expect(reasonOf("")).toBe("empty")
    expect(reasonOf("@ab")).toBe(`"@ab" is not a handle (3 to 30 letters, digits, '.', '_' or '-')`)
    expect(reasonOf("@handle/videos")).toMatch(/is not a handle/)
    expect(reasonOf("https://www.youtube.com/channel/UCshort")).toBe(
      "a /channel/ URL must be followed by a channel id (UC and 22 characters)"
    )
    expect(reasonOf("https://www.youtube.com/c/")).toBe("a /c/ URL must be followed by a channel name")
    expect(reasonOf("https://youtu.be/dQw4w9WgXcQ")).toBe("a youtu.be link names a video, not a channel")
    expect(reasonOf("https://www.youtube.com/feed/trending")).toMatch(/^not a channel URL/)
    expect(reasonOf("https://example.com/@MrBeast")).toBe("example.com is not a YouTube address")
  })

  it("builds canonical URLs", () => {
    expect(channelUrl(ChannelId.make(id))).toBe(`https://www.youtube.com/channel/${id}`)
    expect(channelUrl(channelByHandle(ChannelHandle.make("MrBeast")))).toBe(
      "https://www.youtube.com/@MrBeast"
    )
  })

  it("decodes as a schema and encodes to the short form", () => {
    const decode = Schema.decodeUnknownEither(ChannelRefFromReference)
    expect(decode("https://www.youtube.com/@MrBeast")).toEqual(
      Either.right(channelByHandle(ChannelHandle.make("MrBeast")))
    )
    expect(Either.isLeft(decode("https://youtu.be/dQw4w9WgXcQ"))).toBe(true)
    expect(Schema.encodeSync(ChannelRefFromReference)(channelByHandle(ChannelHandle.make("MrBeast")))).toBe(
      "@MrBeast"
    )
  })
})
