/**
 * Content types of signed PUTs. The local store compares media types the way HTTP defines them:
 * type, subtype and parameter names ignore ASCII case, whitespace around `;` and `=` is ignored,
 * parameter values are compared exactly. Parameters are NOT tolerated: a request sending
 * `audio/mpeg; charset=x` for a ticket signed for `audio/mpeg` is refused, as S3 refuses it (S3
 * signs the header's exact bytes, so it is stricter still: there even the case must match).
 */
import { Either, Option } from "effect"

const token = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/** The normal form used for comparisons, or none when the text is not a media type. */
export const normalize = (text: string): Option.Option<string> => {
  // Printable ASCII only: no control characters (CR/LF) can reach a header.
  if (!/^[\x20-\x7e]*$/.test(text)) return Option.none()
  const [essence = "", ...parameters] = text.split(";")
  const [type, subtype, ...rest] = essence.trim().split("/")
  if (type === undefined || subtype === undefined || rest.length > 0) return Option.none()
  if (!token.test(type) || !token.test(subtype)) return Option.none()
  const normalParameters: Array<string> = []
  for (const parameter of parameters) {
    const at = parameter.indexOf("=")
    if (at < 0) return Option.none()
    const name = parameter.slice(0, at).trim()
    const value = parameter.slice(at + 1).trim()
    if (!token.test(name) || value.length === 0) return Option.none()
    normalParameters.push(`${name.toLowerCase()}=${value}`)
  }
  normalParameters.sort()
  return Option.some([`${type.toLowerCase()}/${subtype.toLowerCase()}`, ...normalParameters].join(";"))
}

/** The content type to sign, or why it cannot be signed. */
export const validate = (text: string): Either.Either<string, string> =>
  Option.isSome(normalize(text)) && text.trim() === text
    ? Either.right(text)
    : Either.left(`"${text}" is not a media type (type/subtype, printable ASCII, no surrounding spaces)`)

/** Whether a request's Content-Type matches the signed one (see the module's rules). */
export const matches = (signed: string, sent: string | undefined): boolean => {
  if (sent === undefined) return false
  const a = normalize(signed)
  const b = normalize(sent)
  return Option.isSome(a) && Option.isSome(b) && a.value === b.value
}
