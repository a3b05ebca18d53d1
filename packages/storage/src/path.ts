/**
 * Blob paths: relative keys such as `uploads/<account>/<id>`, the same rules on every store so a
 * path that works locally works on S3 and never leaves the local store's root.
 *
 * - 1 to 1024 characters (S3's key limit), 1 to 32 segments separated by single `/`;
 * - each segment 1 to 200 characters of `A-Z a-z 0-9 . _ -`, not starting with `.`: so no `.` or
 *   `..`, no absolute path, no backslash, no empty segment, and the local store's hidden names (its
 *   temporary files and content-type sidecars start with `.`) can never be a path.
 */
import { Either } from "effect"

export const maxLength = 1024
export const maxSegments = 32
export const maxSegmentLength = 200

const segmentPattern = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/

/** The path when it follows the rules, else why not. */
export const validate = (path: string): Either.Either<string, string> => {
  if (path.length === 0) return Either.left("the path is empty")
  if (path.length > maxLength) return Either.left(`the path is longer than ${maxLength} characters`)
  const segments = path.split("/")
  if (segments.length > maxSegments) return Either.left(`the path has more than ${maxSegments} segments`)
  for (const segment of segments) {
    if (segment.length === 0)
      return Either.left("the path has an empty segment (a leading, trailing or double /)")
    if (segment.length > maxSegmentLength)
      return Either.left(`a path segment is longer than ${maxSegmentLength} characters`)
    if (!segmentPattern.test(segment))
      return Either.left(
        "a path segment may hold only A-Z a-z 0-9 . _ - and may not start with . (no . or .. segments)"
      )
  }
  return Either.right(path)
}

/** The path's segments (the path must be valid). */
export const segmentsOf = (path: string): ReadonlyArray<string> => path.split("/")
