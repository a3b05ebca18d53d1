/**
 * Text as caption bodies carry it: XML and HTML entities (named, decimal, hexadecimal; legacy
 * bodies escape twice), inline markup such as `<i>` or `<font>`, and line breaks inside a cue.
 */

/** The named entities captions use; an unknown name is left as written. */
const named: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
  hellip: "…",
  mdash: "—",
  ndash: "–",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  laquo: "«",
  raquo: "»",
  shy: "\u00ad",
  copy: "©",
  reg: "®",
  trade: "™",
  deg: "°",
  middot: "·",
  bull: "•",
  euro: "€",
  pound: "£",
  cent: "¢",
  yen: "¥",
  times: "×",
  divide: "÷",
  iexcl: "¡",
  iquest: "¿",
  szlig: "ß",
  auml: "ä",
  ouml: "ö",
  uuml: "ü",
  Auml: "Ä",
  Ouml: "Ö",
  Uuml: "Ü",
  aacute: "á",
  eacute: "é",
  iacute: "í",
  oacute: "ó",
  uacute: "ú",
  Aacute: "Á",
  Eacute: "É",
  Iacute: "Í",
  Oacute: "Ó",
  Uacute: "Ú",
  agrave: "à",
  egrave: "è",
  ugrave: "ù",
  Agrave: "À",
  Egrave: "È",
  acirc: "â",
  ecirc: "ê",
  icirc: "î",
  ocirc: "ô",
  ucirc: "û",
  ccedil: "ç",
  Ccedil: "Ç",
  ntilde: "ñ",
  Ntilde: "Ñ",
  atilde: "ã",
  otilde: "õ",
  euml: "ë",
  iuml: "ï"
}

const entity = /&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/g

const codePoint = (n: number, raw: string): string =>
  Number.isInteger(n) && n > 0 && n <= 0x10ffff && !(n >= 0xd800 && n <= 0xdfff)
    ? String.fromCodePoint(n)
    : raw

/** Decodes the entities of `text` once. */
export const decodeEntities = (text: string): string =>
  text.includes("&")
    ? text.replace(entity, (raw, body: string) => {
        if (body.startsWith("#x") || body.startsWith("#X"))
          return codePoint(Number.parseInt(body.slice(2), 16), raw)
        if (body.startsWith("#")) return codePoint(Number.parseInt(body.slice(1), 10), raw)
        return named[body] ?? raw
      })
    : text

const tag = /<\/?[A-Za-z][^<>]*>/g
const lineBreak = /<br\s*\/?>/gi

/**
 * The plain text of a cue: `<br>` become spaces, other tags go, entities are decoded, whitespace
 * runs (line breaks included) become one space, and the ends are trimmed.
 */
export const plainText = (markup: string): string =>
  decodeEntities(markup.replace(lineBreak, " ").replace(tag, ""))
    .replace(/[\s\u00a0]+/g, " ")
    .trim()
