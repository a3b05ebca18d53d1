/**
 * Reading a video platform URL typed by a person: with or without a scheme (http or https only),
 * on one of the platform's hosts, split into path segments and query parameters. The host-specific
 * meaning of the path is left to `video.ts`, `playlist.ts` and `channel.ts`. Uses the standard
 * global `URL` class, no host runtime module.
 */
import { Either } from "effect"

/** Hosts that serve the platform's full pages. */
export const siteHosts: ReadonlyArray<string> = [
  "youtube.com",
  "www.youtube.com",
  "m.youtube.com",
  "music.youtube.com",
  "youtube-nocookie.com",
  "www.youtube-nocookie.com"
]

/** The short-link host, whose path is just a video id. */
export const shortHost = "youtu.be"

/** The canonical origin used by the URL builders. */
export const canonicalOrigin = "https://www.youtube.com"

export interface PlatformUrl {
  /** `site` for the full-page hosts, `short` for youtu.be. */
  readonly host: "site" | "short"
  /** Non-empty path segments, not decoded (ids and handles never need decoding). */
  readonly segments: ReadonlyArray<string>
  readonly params: URLSearchParams
}

const schemePattern = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//

const withScheme = (input: string): string =>
  schemePattern.test(input) ? input : input.startsWith("//") ? `https:${input}` : `https://${input}`

/** Parses trimmed input as a platform URL, or says why it is not one. */
export const parsePlatformUrl = (input: string): Either.Either<PlatformUrl, string> =>
  Either.try(() => new URL(withScheme(input))).pipe(
    Either.mapLeft(() => "neither an id nor a URL"),
    Either.flatMap((url) => {
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        return Either.left(`only http and https URLs are accepted, not ${url.protocol}`)
      }
      const hostname = url.hostname.endsWith(".") ? url.hostname.slice(0, -1) : url.hostname
      const host = hostname === shortHost ? "short" : siteHosts.includes(hostname) ? "site" : undefined
      if (host === undefined) {
        return Either.left(`${hostname === "" ? "the URL" : hostname} is not a YouTube address`)
      }
      const segments = url.pathname.split("/").filter((segment) => segment.length > 0)
      return Either.right({ host, segments, params: url.searchParams })
    })
  )
