/**
 * Pricing: every credit amount the service charges, exact and explained.
 *
 * Rounding rules (all amounts are whole, non-negative `Credits`):
 * 1. Durations: fractional seconds round UP to a whole second first (0.2 s → 1 s); NaN and
 *    negatives count as 0; durations are capped at `maxPricedSeconds` (10^12 s).
 * 2. ASR base: ceil(seconds / 90). 0 s costs 0; any positive duration costs at least 1.
 * 3. ASR add-ons: the distinct add-ons' hourly rates are summed and prorated, and the surcharge is
 *    rounded UP ONCE: ceil(sumOfRates × seconds / 3600), in integer arithmetic. Order and repeats
 *    of add-ons never matter. Each add-on's exact share is a reduced fraction (`addOnBreakdown`).
 * 4. ASR total = base + surcharge (each rounded on its own, then added).
 * 5. Native captions: 1 per transcript served; 0 when already owned.
 * 6. Translation: ceil(code points / 2500): 0 for empty text, at least 1 otherwise; 0 when owned.
 * 7. Themes: 1 per transcript, once; 0 when unlocked or under `minThemesWords` (50) words.
 * 8. Free: recommendations, estimate, themes GET and the ASR confirmation quote cost 0.
 * 9. Estimate: an unknown duration estimates 0 with null durations; `duration_minutes` is
 *    seconds / 60 rounded half-up to 2 decimals; over 480 minutes is priced and flagged.
 */
export * from "./asr.js"
export * from "./captions.js"
export * from "./duration.js"
export * from "./estimate.js"
export * from "./free.js"
export * from "./quote.js"
export * from "./rates.js"
export * as Rational from "./rational.js"
export * from "./themes.js"
export * from "./translation.js"
