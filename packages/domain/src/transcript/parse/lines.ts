/** Splitting a caption file into lines: a leading byte order mark dropped, CRLF, CR and LF all end a line. */

export const linesOf = (input: string): ReadonlyArray<string> =>
  input.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/)

/** A line with nothing but spaces and tabs separates blocks. */
export const isBlank = (line: string): boolean => /^[ \t]*$/.test(line)
