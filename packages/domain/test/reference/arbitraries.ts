/** Arbitrary ids and every URL dress they may come in: scheme, host, case, parameters, fragment, whitespace. */
import { Arbitrary, FastCheck as fc } from "effect"
import { ChannelHandle, ChannelId, PlaylistId, VideoId } from "../../src/ids.js"
import { LegacyChannelName } from "../../src/reference/channel.js"
import { siteHosts } from "../../src/reference/platform-url.js"

export const videoId = Arbitrary.make(VideoId)
export const playlistId = Arbitrary.make(PlaylistId)
export const channelId = Arbitrary.make(ChannelId)
export const channelHandle = Arbitrary.make(ChannelHandle)
export const legacyName = Arbitrary.make(LegacyChannelName)

export const whitespace = fc.stringMatching(/^[ \t\r\n]{0,3}$/)
export const scheme = fc.constantFrom("", "http://", "https://", "//", "HTTPS://", "Http://")

/** A string in random letter case. */
export const anyCase = (s: string): fc.Arbitrary<string> =>
  fc
    .array(fc.boolean(), { minLength: s.length, maxLength: s.length })
    .map((upper) => [...s].map((c, i) => (upper[i] === true ? c.toUpperCase() : c)).join(""))

export const siteHost = fc.constantFrom(...siteHosts).chain(anyCase)
export const shortHost = anyCase("youtu.be")

const paramValue = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_-]{0,12}$/),
  fc.string({ maxLength: 8 }).map(encodeURIComponent)
)

/** Extra query parameters that never name `v` or `list`. */
export const extraParams = fc.array(
  fc.tuple(fc.constantFrom("t", "si", "feature", "index", "pp", "ab_channel", "start"), paramValue),
  { maxLength: 4 }
)

export const fragment = fc.oneof(
  fc.constant(""),
  fc.constant("#t=30"),
  fc.stringMatching(/^[A-Za-z0-9=_-]{0,8}$/).map((f) => `#${f}`)
)

/** Places `extra` around a required parameter at a random position and renders the query. */
export const query = (
  required: ReadonlyArray<readonly [string, string]>,
  extra: ReadonlyArray<readonly [string, string]>,
  at: number
): string => {
  const position = extra.length === 0 ? 0 : at % (extra.length + 1)
  const all = [...extra.slice(0, position), ...required, ...extra.slice(position)]
  return all.length === 0 ? "" : `?${all.map(([k, v]) => `${k}=${v}`).join("&")}`
}

/** Dresses a host and path in a scheme, query, fragment and surrounding whitespace. */
export const dress = (
  host: fc.Arbitrary<string>,
  path: string,
  required: ReadonlyArray<readonly [string, string]>
): fc.Arbitrary<string> =>
  fc
    .record({
      before: whitespace,
      scheme,
      host,
      extra: extraParams,
      at: fc.nat(),
      fragment,
      after: whitespace
    })
    .map(
      (p) => `${p.before}${p.scheme}${p.host}${path}${query(required, p.extra, p.at)}${p.fragment}${p.after}`
    )

/** Every URL form of a video id. */
export const videoUrlOf = (id: string): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom("/watch", "/watch/").chain((path) => dress(siteHost, path, [["v", id]])),
    fc
      .record({
        prefix: fc.constantFrom("shorts", "live", "embed", "v", "e"),
        slash: fc.constantFrom("", "/")
      })
      .chain(({ prefix, slash }) => dress(siteHost, `/${prefix}/${id}${slash}`, [])),
    fc.constantFrom("", "/").chain((slash) => dress(shortHost, `/${id}${slash}`, [])),
    playlistId.chain((list) =>
      dress(siteHost, "/watch", [
        ["v", id],
        ["list", list]
      ])
    )
  )

/** Every URL form of a playlist id. */
export const playlistUrlOf = (id: string): fc.Arbitrary<string> =>
  fc.oneof(
    dress(siteHost, "/playlist", [["list", id]]),
    videoId.chain((v) =>
      dress(siteHost, "/watch", [
        ["v", v],
        ["list", id]
      ])
    ),
    videoId.chain((v) => dress(shortHost, `/${v}`, [["list", id]])),
    dress(siteHost, "/embed/videoseries", [["list", id]])
  )

export const channelTab = fc.constantFrom(
  "",
  "/",
  "/videos",
  "/shorts",
  "/streams",
  "/featured",
  "/about",
  "/playlists"
)

export const channelIdUrlOf = (id: string): fc.Arbitrary<string> =>
  channelTab.chain((tab) => dress(siteHost, `/channel/${id}${tab}`, []))

export const handleUrlOf = (handle: string): fc.Arbitrary<string> =>
  channelTab.chain((tab) => dress(siteHost, `/@${handle}${tab}`, []))

/** Arbitrary text that mentions no platform host. */
export const unrelatedText = fc
  .oneof(
    fc.string(),
    fc.webUrl(),
    fc.stringMatching(/^[A-Za-z0-9_\-./:?=&@#% ]{0,40}$/),
    fc.constantFrom(
      "https://example.com/watch?v=dQw4w9WgXcQ",
      "https://vimeo.com/dQw4w9WgXcQ",
      "https://youtube.com.evil.example/watch?v=dQw4w9WgXcQ",
      "https://notyoutube.com/watch?v=dQw4w9WgXcQ",
      "ftp://example.org/@handle"
    )
  )
  .filter((s) => !/youtu(be(-nocookie)?\.com|\.be)/i.test(s) || /evil|notyoutube/.test(s))
