/** Deterministic synthetic transcript text for seeding: a fixed vocabulary and a seeded generator. */

const vocabulary =
  "the a of and to in is that it was for on are as with his they at be this from have or by one had not but what all were when we there can an your which their said if do will each about how up out them then she many some so these would other into has more her two like him see time could no make than first been its who now people my made over did down only way find use may water long little very after words called just where most know get through back much go good new write our me man too any day same right look think also around another came come work three word must because does part even place well such here take why things help put years different away again off went old number great tell men say small every found still between name should home big give air line set own under read last never us left end along while might next sound below saw something thought both few those always looked show large often together asked house world going want school important until form food keep children feet land side without boy once animals life enough took sometimes four head above kind began almost live page got earth need far hand high year mother light parts country father let night following picture being study second eyes soon times story boys since white days ever paper hard near sentence better best across during today others however sure means knew garden kitchen river mountain engine signal market window battery harbour lantern".split(
    " "
  )

/** A small linear congruential generator: the same seed gives the same text on every machine. */
export const generator = (seed: number) => {
  let state = seed >>> 0
  return (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

export const words = (random: () => number, count: number): string => {
  const out: Array<string> = []
  for (let i = 0; i < count; i++) out.push(vocabulary[Math.floor(random() * vocabulary.length)] ?? "the")
  return out.join(" ")
}

/** A rare word planted in few transcripts, to measure a selective search. */
export const rareWord = "zebrafinch"
/** A word of the vocabulary, found in almost every transcript. */
export const commonWord = "garden"
