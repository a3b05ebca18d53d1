/**
 * Video references: a bare 11-character id, or a video URL on any of the platform's hosts
 * (`/watch?v=`, `youtu.be/<id>`, `/shorts/`, `/live/`, `/embed/`, `/v/`, `/e/`), with or without
 * scheme, with extra parameters, fragments, trailing slash and surrounding whitespace.
 */
import { Either, ParseResult, Schema } from "effect"
import { VideoId } from "../ids.js"
import { InvalidReference } from "./error.js"
import { canonicalOrigin, parsePlatformUrl } from "./platform-url.js"

/** Path prefixes whose next segment is the video id. */
export const videoPathPrefixes: ReadonlyArray<string> = ["shorts", "live", "embed", "v", "e"]

const isVideoId = Schema.is(VideoId)

const invalid = (input: string, reason: string) => new InvalidReference({ kind: "video", input, reason })

const checkId = (candidate: string | null | undefined, where: string): Either.Either<VideoId, string> =>
  candidate === null || candidate === undefined || candidate.length === 0
    ? Either.left(`${where} holds no video id`)
    : isVideoId(candidate)
      ? Either.right(candidate)
      : Either.left(`${where} "${candidate}" is not an 11-character video id`)

const fromUrl = (input: string): Either.Either<VideoId, string> =>
  Either.flatMap(parsePlatformUrl(input), ({ host, params, segments }) => {
    const [first, second, ...rest] = segments
    if (host === "short") {
      return second === undefined
        ? checkId(first, "the youtu.be path")
        : Either.left("a youtu.be link has one path segment")
    }
    const prefix = first?.toLowerCase()
    if (prefix === "watch" && second === undefined) return checkId(params.get("v"), "the v= parameter")
    if (
      prefix !== undefined &&
      videoPathPrefixes.includes(prefix) &&
      second !== undefined &&
      rest.length === 0
    ) {
      return prefix === "embed" && second === "videoseries"
        ? Either.left("an embedded playlist is not a video")
        : checkId(second, `the /${prefix}/ path`)
    }
    return Either.left(
      "not a video URL: expected /watch?v=, /shorts/, /live/, /embed/, /v/ or /e/ followed by a video id"
    )
  })

/** Parses user input naming a video. */
export const parseVideo = (input: string): Either.Either<VideoId, InvalidReference> => {
  const trimmed = input.trim()
  if (trimmed.length === 0) return Either.left(invalid(input, "empty"))
  if (isVideoId(trimmed)) return Either.right(trimmed)
  return Either.mapLeft(fromUrl(trimmed), (reason) => invalid(input, reason))
}

/** The canonical watch URL of a video. */
export const videoUrl = (id: VideoId): string => `${canonicalOrigin}/watch?v=${id}`

/** A video id or URL as a request sends it, decoded to the video id; encodes to the bare id. */
export const VideoIdFromReference = Schema.transformOrFail(Schema.String, VideoId, {
  strict: true,
  decode: (input, _, ast) =>
    Either.match(parseVideo(input), {
      onLeft: (error) => ParseResult.fail(new ParseResult.Type(ast, input, error.reason)),
      onRight: (id) => ParseResult.succeed(id)
    }),
  encode: (id) => ParseResult.succeed(id)
}).annotations({ identifier: "VideoReference", description: "Video URL or 11-character video ID" })
