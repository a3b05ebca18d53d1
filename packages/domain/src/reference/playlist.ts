/**
 * Playlist references: a bare playlist id (the `list=` value), or any platform URL carrying
 * `list=` (`/playlist?list=`, `/watch?v=..&list=`, `youtu.be/<id>?list=`, `/embed/videoseries?list=`).
 */
import { Either, ParseResult, Schema } from "effect"
import { PlaylistId } from "../ids.js"
import { InvalidReference } from "./error.js"
import { canonicalOrigin, parsePlatformUrl } from "./platform-url.js"

const isPlaylistId = Schema.is(PlaylistId)

const invalid = (input: string, reason: string) => new InvalidReference({ kind: "playlist", input, reason })

const fromUrl = (input: string): Either.Either<PlaylistId, string> =>
  Either.flatMap(parsePlatformUrl(input), ({ params }) => {
    const list = params.get("list")
    if (list === null || list.length === 0) return Either.left("the URL has no list= parameter")
    return isPlaylistId(list)
      ? Either.right(list)
      : Either.left(`the list= parameter "${list}" is not a playlist id`)
  })

/** Parses user input naming a playlist. */
export const parsePlaylist = (input: string): Either.Either<PlaylistId, InvalidReference> => {
  const trimmed = input.trim()
  if (trimmed.length === 0) return Either.left(invalid(input, "empty"))
  if (isPlaylistId(trimmed)) return Either.right(trimmed)
  return Either.mapLeft(fromUrl(trimmed), (reason) => invalid(input, reason))
}

/** The canonical URL of a playlist. */
export const playlistUrl = (id: PlaylistId): string => `${canonicalOrigin}/playlist?list=${id}`

/** A playlist id or URL as a request sends it, decoded to the playlist id; encodes to the bare id. */
export const PlaylistIdFromReference = Schema.transformOrFail(Schema.String, PlaylistId, {
  strict: true,
  decode: (input, _, ast) =>
    Either.match(parsePlaylist(input), {
      onLeft: (error) => ParseResult.fail(new ParseResult.Type(ast, input, error.reason)),
      onRight: (id) => ParseResult.succeed(id)
    }),
  encode: (id) => ParseResult.succeed(id)
}).annotations({
  identifier: "PlaylistReference",
  description: "Playlist URL or playlist id (the list= value)"
})
