/**
 * The catalogue shipped with the package (catalogue/demo.json, beside src/ and dist/), and the
 * setting that chooses a catalogue: `VERBATIM_DEMO_CATALOG`, the shipped one when unset.
 */
import { fileURLToPath } from "node:url"
import { Config } from "effect"

/** Absolute path of the shipped catalogue; resolves the same from src/ (tests) and dist/ (built). */
export const shippedCataloguePath: string = fileURLToPath(new URL("../catalogue/demo.json", import.meta.url))

/** The catalogue file to load: `VERBATIM_DEMO_CATALOG`, or the shipped catalogue. */
export const demoCataloguePath: Config.Config<string> = Config.string("VERBATIM_DEMO_CATALOG").pipe(
  Config.withDefault(shippedCataloguePath)
)
