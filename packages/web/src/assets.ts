/**
 * The pages' bundle (`scripts/bundle.mjs web` writes `build/app.js` and `build/app.css`), read once
 * when the server starts and served from memory under names that carry a hash of their content
 * (`/web/app-<hash>.js`), so a browser keeps them for good and a new build is a new name. Each is
 * kept gzipped too, for the browsers that accept it. A checkout whose bundle was not built serves a
 * page that says how to build it.
 */
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { gzipSync } from "node:zlib"
import { Effect, Option } from "effect"

export interface Asset {
  /** The name it is served under: `app-<hash>.js`. */
  readonly name: string
  readonly contentType: string
  readonly body: Uint8Array
  readonly gzipped: Uint8Array
}

export interface Assets {
  readonly script: Asset
  readonly style: Asset
  /** Every asset by its served name. */
  readonly byName: ReadonlyMap<string, Asset>
}

/** Where the bundle is: `build/` beside `src/` (also when this module is inside a server bundle). */
export const buildFolder = new URL("../build/", import.meta.url)

const assetOf = (file: string, contentType: string): Asset => {
  const body = readFileSync(new URL(file, buildFolder))
  const hash = createHash("sha256").update(body).digest("base64url").slice(0, 12)
  const dot = file.lastIndexOf(".")
  return {
    name: `${file.slice(0, dot)}-${hash}${file.slice(dot)}`,
    contentType,
    body,
    gzipped: gzipSync(body, { level: 9 })
  }
}

/** The bundle, or none when it was not built (a warning is logged). */
export const loadAssets: Effect.Effect<Option.Option<Assets>> = Effect.suspend(() => {
  try {
    const script = assetOf("app.js", "text/javascript; charset=utf-8")
    const style = assetOf("app.css", "text/css; charset=utf-8")
    return Effect.succeed(
      Option.some({
        script,
        style,
        byName: new Map([
          [script.name, script],
          [style.name, style]
        ])
      })
    )
  } catch (error) {
    return Effect.as(
      Effect.logWarning(
        "the web library's pages are not built (node scripts/bundle.mjs web): its pages say so",
        String(error)
      ),
      Option.none()
    )
  }
})
