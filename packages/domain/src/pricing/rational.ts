/**
 * Exact non-negative fractions over safe integers, used to explain prorated prices without
 * floating-point error: a share of a credit is `numerator / denominator`, always reduced.
 * Inputs stay far below 2^53 because priced durations are capped (`maxPricedSeconds`).
 */
import { Schema } from "effect"

export const Rational = Schema.Struct({
  numerator: Schema.NonNegativeInt,
  denominator: Schema.Int.pipe(Schema.positive())
}).annotations({ identifier: "Rational", description: "An exact fraction numerator / denominator" })
export type Rational = typeof Rational.Type

const gcd = (a: number, b: number): number => {
  let x = a
  let y = b
  while (y !== 0) {
    const r = x % y
    x = y
    y = r
  }
  return x
}

/** `ceil(n / d)` for a non-negative integer `n` and a positive integer `d`, exactly. */
export const ceilDiv = (n: number, d: number): number => {
  const r = n % d
  return (n - r) / d + (r > 0 ? 1 : 0)
}

/** The reduced fraction `numerator / denominator`. */
export const rational = (numerator: number, denominator: number): Rational => {
  const g = gcd(numerator, denominator)
  return g === 0
    ? { numerator: 0, denominator: 1 }
    : { numerator: numerator / g, denominator: denominator / g }
}

export const zero: Rational = { numerator: 0, denominator: 1 }

/** The exact sum of two fractions (over their least common denominator). */
export const add = (a: Rational, b: Rational): Rational => {
  const lcm = (a.denominator / gcd(a.denominator, b.denominator)) * b.denominator
  return rational(a.numerator * (lcm / a.denominator) + b.numerator * (lcm / b.denominator), lcm)
}

export const sum = (values: ReadonlyArray<Rational>): Rational => values.reduce(add, zero)

/** The smallest whole number not below the fraction. */
export const ceil = (r: Rational): number => ceilDiv(r.numerator, r.denominator)

export const equals = (a: Rational, b: Rational): boolean =>
  a.numerator === b.numerator && a.denominator === b.denominator

/** `1/2`, or `3` when the denominator is 1. */
export const format = (r: Rational): string =>
  r.denominator === 1 ? `${r.numerator}` : `${r.numerator}/${r.denominator}`
