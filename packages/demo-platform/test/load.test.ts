import { FileSystem } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { loadCatalogue } from "../src/load.js"
import { at, validJson } from "./fixtures.js"

/** Writes `text` to a fresh temporary file and returns its path. */
const tempFile = (text: string) =>
  Effect.gen(function* () {
    const fs = yield* FileSystem.FileSystem
    const dir = yield* fs.makeTempDirectoryScoped({ prefix: "verbatim-demo-" })
    const path = `${dir}/catalogue.json`
    yield* fs.writeFileString(path, text)
    return path
  })

it.layer(NodeContext.layer)("loadCatalogue", (it) => {
  it.scoped("loads and decodes a valid file", () =>
    Effect.gen(function* () {
      const path = yield* tempFile(JSON.stringify(validJson()))
      const catalogue = yield* loadCatalogue(path)
      expect(catalogue.videos.map((v) => v.id)).toEqual(["aaaaaaaaaaa", "bbbbbbbbbbb", "ccccccccccc"])
    })
  )

  describe("refuses with CatalogueInvalid naming the file", () => {
    it.scoped("a missing file", () =>
      Effect.gen(function* () {
        const dir = yield* FileSystem.FileSystem.pipe(Effect.flatMap((fs) => fs.makeTempDirectoryScoped()))
        const path = `${dir}/nowhere.json`
        const error = yield* Effect.flip(loadCatalogue(path))
        expect(error._tag).toBe("CatalogueInvalid")
        expect(error.path).toBe(path)
        expect(error.message).toBe(`demo catalogue file not found: ${path}`)
      })
    )

    it.scoped("a path that is a directory", () =>
      Effect.gen(function* () {
        const dir = yield* FileSystem.FileSystem.pipe(Effect.flatMap((fs) => fs.makeTempDirectoryScoped()))
        const error = yield* Effect.flip(loadCatalogue(dir))
        expect(error.message.startsWith(`cannot read the demo catalogue ${dir}: `)).toBe(true)
      })
    )

    it.scoped("bad JSON", () =>
      Effect.gen(function* () {
        const path = yield* tempFile('{ "channels": [], }')
        const error = yield* Effect.flip(loadCatalogue(path))
        expect(error.path).toBe(path)
        expect(error.message.startsWith(`demo catalogue ${path} is not valid JSON: `)).toBe(true)
      })
    )

    it.scoped("an empty file", () =>
      Effect.gen(function* () {
        const path = yield* tempFile("")
        const error = yield* Effect.flip(loadCatalogue(path))
        expect(error.message.startsWith(`demo catalogue ${path} is not valid JSON: `)).toBe(true)
      })
    )

    it.scoped("a schema violation, listing every problem with its path", () =>
      Effect.gen(function* () {
        const json = validJson()
        at(json.playlists, 0).video_ids.push("zzzzzzzzzzz")
        const video = at(json.videos, 0)
        video.duration_seconds = -5
        const path = yield* tempFile(JSON.stringify(json))
        const error = yield* Effect.flip(loadCatalogue(path))
        expect(error.message).toBe(
          [
            `demo catalogue ${path} is invalid:`,
            "  videos[0].duration_seconds: Expected a non-negative number, actual -5"
          ].join("\n")
        )
        // cross-references are checked once every record is well-formed
        video.duration_seconds = 5
        const fixed = yield* tempFile(JSON.stringify(json))
        const second = yield* Effect.flip(loadCatalogue(fixed))
        expect(second.message).toBe(
          [
            `demo catalogue ${fixed} is invalid:`,
            "  playlists[0].video_ids[3]: no video zzzzzzzzzzz in videos"
          ].join("\n")
        )
      })
    )
  })
})
