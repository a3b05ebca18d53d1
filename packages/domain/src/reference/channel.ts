/**
 * Channel references: a channel id (`UC` + 22 characters), a handle (with or without `@`), or a
 * channel URL (`/channel/UC…`, `/@handle` and its tabs such as `/@handle/videos`). Legacy custom
 * URLs (`/c/<name>`, `/user/<name>`) are kept as their own kind of reference rather than taken for
 * handles, because a legacy name and the handle of the same spelling can be different channels:
 * the platform adapter resolves them by their URL (`channelUrl`).
 */
import { Either, ParseResult, Schema } from "effect"
import { ChannelHandle, ChannelId } from "../ids.js"
import { InvalidReference } from "./error.js"
import { canonicalOrigin, parsePlatformUrl } from "./platform-url.js"

/**
 * The name in a legacy `/c/<name>` or `/user/<name>` channel URL. It holds a letter or digit, so it
 * is never a `.` or `..` path segment, which URLs resolve away.
 */
export const LegacyChannelName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9._-]{1,100}$/),
  Schema.filter((name) => /[A-Za-z0-9]/.test(name) || "a legacy channel name has a letter or digit"),
  Schema.brand("LegacyChannelName"),
  Schema.annotations({
    identifier: "LegacyChannelName",
    description: "The name of a legacy /c/ or /user/ URL"
  })
)
export type LegacyChannelName = typeof LegacyChannelName.Type

/** Which legacy URL form a legacy name came from. */
export const LegacyChannelPath = Schema.Literal("c", "user")
export type LegacyChannelPath = typeof LegacyChannelPath.Type

export const ChannelById = Schema.TaggedStruct("Id", { id: ChannelId })
export const ChannelByHandle = Schema.TaggedStruct("Handle", { handle: ChannelHandle })
export const ChannelByLegacyName = Schema.TaggedStruct("LegacyName", {
  path: LegacyChannelPath,
  name: LegacyChannelName
})

/** A parsed channel reference: by id, by handle, or by legacy custom name. */
export const ChannelRef = Schema.Union(ChannelById, ChannelByHandle, ChannelByLegacyName).annotations({
  identifier: "ChannelRef"
})
export type ChannelRef = typeof ChannelRef.Type

export const channelById = (id: ChannelId): ChannelRef => ChannelById.make({ id })
export const channelByHandle = (handle: ChannelHandle): ChannelRef => ChannelByHandle.make({ handle })

const isChannelId = Schema.is(ChannelId)
const isHandle = Schema.is(ChannelHandle)
const isLegacyName = Schema.is(LegacyChannelName)

const handleRule = "3 to 30 letters, digits, '.', '_' or '-'"

const invalid = (input: string, reason: string) => new InvalidReference({ kind: "channel", input, reason })

const handle = (candidate: string): Either.Either<ChannelRef, string> =>
  isHandle(candidate)
    ? Either.right(channelByHandle(candidate))
    : Either.left(`"@${candidate}" is not a handle (${handleRule})`)

const fromUrl = (input: string): Either.Either<ChannelRef, string> =>
  Either.flatMap(parsePlatformUrl(input), ({ host, segments }) => {
    if (host === "short") return Either.left("a youtu.be link names a video, not a channel")
    const [first, second] = segments
    if (first?.startsWith("@")) return handle(first.slice(1))
    const prefix = first?.toLowerCase()
    if (prefix === "channel") {
      return second !== undefined && isChannelId(second)
        ? Either.right(channelById(second))
        : Either.left("a /channel/ URL must be followed by a channel id (UC and 22 characters)")
    }
    if (prefix === "c" || prefix === "user") {
      return second !== undefined && isLegacyName(second)
        ? Either.right(ChannelByLegacyName.make({ path: prefix, name: second }))
        : Either.left(`a /${prefix}/ URL must be followed by a channel name`)
    }
    return Either.left("not a channel URL: expected /channel/UC…, /@handle, /c/<name> or /user/<name>")
  })

/**
 * Parses user input naming a channel. A bare `UC` + 22 characters is a channel id; any other bare
 * word is a handle, with or without its `@`.
 */
export const parseChannel = (input: string): Either.Either<ChannelRef, InvalidReference> => {
  const trimmed = input.trim()
  const result: Either.Either<ChannelRef, string> =
    trimmed.length === 0
      ? Either.left("empty")
      : trimmed.startsWith("@")
        ? handle(trimmed.slice(1))
        : isChannelId(trimmed)
          ? Either.right(channelById(trimmed))
          : isHandle(trimmed)
            ? Either.right(channelByHandle(trimmed))
            : fromUrl(trimmed)
  return Either.mapLeft(result, (reason) => invalid(input, reason))
}

/** The canonical URL of a channel, by id, handle or legacy name. */
export const channelUrl = (ref: ChannelId | ChannelRef): string => {
  if (typeof ref === "string") return `${canonicalOrigin}/channel/${ref}`
  switch (ref._tag) {
    case "Id":
      return `${canonicalOrigin}/channel/${ref.id}`
    case "Handle":
      return `${canonicalOrigin}/@${ref.handle}`
    case "LegacyName":
      return `${canonicalOrigin}/${ref.path}/${ref.name}`
  }
}

/** The shortest text that names a channel reference and parses back to it. */
export const formatChannel = (ref: ChannelRef): string => {
  switch (ref._tag) {
    case "Id":
      return ref.id
    case "Handle":
      return `@${ref.handle}`
    case "LegacyName":
      return channelUrl(ref)
  }
}

/**
 * A channel id, handle or URL as a request sends it, decoded to a channel reference; encodes to
 * `formatChannel`.
 */
export const ChannelRefFromReference = Schema.transformOrFail(Schema.String, Schema.typeSchema(ChannelRef), {
  strict: true,
  decode: (input, _, ast) =>
    Either.match(parseChannel(input), {
      onLeft: (error) => ParseResult.fail(new ParseResult.Type(ast, input, error.reason)),
      onRight: (ref) => ParseResult.succeed(ref)
    }),
  encode: (ref) => ParseResult.succeed(formatChannel(ref))
}).annotations({ identifier: "ChannelReference", description: "Channel URL, channel id or handle" })
