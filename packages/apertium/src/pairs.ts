/**
 * Apertium names its translation directions ("modes") with ISO 639-3 codes (`eng-spa`), a few
 * older pairs with ISO 639-1 codes (`br-fr`); the API speaks ISO 639-1. A pair is translated when
 * one of the installed modes is `<source>-<target>` in either naming (a variant such as
 * `spa-eng_US` is not chosen).
 */
import { Language } from "@verbatim/domain"

/** ISO 639-1 → ISO 639-3 for the languages of Debian's Apertium pairs. */
export const iso639_3: Readonly<Record<string, ReadonlyArray<string>>> = {
  af: ["afr"],
  an: ["arg"],
  be: ["bel"],
  bg: ["bul"],
  br: ["bre"],
  bs: ["hbs", "bos"],
  ca: ["cat"],
  cy: ["cym"],
  da: ["dan"],
  en: ["eng"],
  eo: ["epo"],
  es: ["spa"],
  eu: ["eus"],
  fr: ["fra"],
  gl: ["glg"],
  hr: ["hbs", "hrv"],
  id: ["ind"],
  is: ["isl"],
  it: ["ita"],
  kk: ["kaz"],
  mk: ["mkd"],
  ms: ["zlm", "msa"],
  mt: ["mlt"],
  nb: ["nob"],
  nl: ["nld"],
  nn: ["nno"],
  no: ["nor", "nob"],
  oc: ["oci"],
  pl: ["pol"],
  pt: ["por"],
  ro: ["ron"],
  ru: ["rus"],
  sc: ["srd"],
  sl: ["slv"],
  sr: ["hbs", "srp"],
  sv: ["swe"],
  tt: ["tat"],
  uk: ["ukr"]
}

const names = (code: Language.LanguageCode): ReadonlyArray<string> => {
  const primary = Language.primary(code).toLowerCase()
  return [...(iso639_3[primary] ?? []), primary]
}

/** The installed mode that translates `source` into `target`, if any. */
export const modeFor = (
  modes: ReadonlyArray<string>,
  source: Language.LanguageCode,
  target: Language.LanguageCode
): string | undefined => {
  const installed = new Set(modes)
  for (const s of names(source)) {
    for (const t of names(target)) {
      const mode = `${s}-${t}`
      if (installed.has(mode)) return mode
    }
  }
  return undefined
}

/** The modes `apertium -l` lists, one per line. */
export const parseModes = (listing: string): ReadonlyArray<string> =>
  listing
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => /^[a-z]{2,3}(_[A-Za-z]+)?-[a-z]{2,3}(_[A-Za-z0-9]+)?$/.test(line))
