/**
 * Loading a catalogue file: read it with the platform's FileSystem, parse the JSON, decode it.
 * Every way this can go wrong (no file, unreadable file, bad JSON, broken rules) is one typed
 * error, `CatalogueInvalid`, whose message names the file.
 */
import { FileSystem } from "@effect/platform"
import { Effect, Either, Schema } from "effect"
import { type Catalogue, decodeCatalogue } from "./catalogue.js"

/** The catalogue file at `path` cannot be used; `message` says why, naming the file. */
export class CatalogueInvalid extends Schema.TaggedError<CatalogueInvalid>()("CatalogueInvalid", {
  path: Schema.String,
  message: Schema.String
}) {}

/** Parses and decodes the text of a catalogue file; `path` only names the file in messages. */
export const parseCatalogue = (text: string, path: string): Either.Either<Catalogue, CatalogueInvalid> =>
  Either.try({
    try: (): unknown => JSON.parse(text),
    catch: (cause) =>
      new CatalogueInvalid({
        path,
        message: `demo catalogue ${path} is not valid JSON: ${cause instanceof Error ? cause.message : String(cause)}`
      })
  }).pipe(
    Either.flatMap((json) =>
      Either.mapLeft(
        decodeCatalogue(json),
        (lines) =>
          new CatalogueInvalid({
            path,
            message: `demo catalogue ${path} is invalid:\n${lines.map((line) => `  ${line}`).join("\n")}`
          })
      )
    )
  )

/** Reads, parses and decodes the catalogue file at `path`. */
export const loadCatalogue = (
  path: string
): Effect.Effect<Catalogue, CatalogueInvalid, FileSystem.FileSystem> =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(path).pipe(
      Effect.mapError(
        (error) =>
          new CatalogueInvalid({
            path,
            message:
              error._tag === "SystemError" && error.reason === "NotFound"
                ? `demo catalogue file not found: ${path}`
                : `cannot read the demo catalogue ${path}: ${error.message}`
          })
      )
    )
    return yield* parseCatalogue(text, path)
  })
