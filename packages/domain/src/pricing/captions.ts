/** Native captions: 1 credit per transcript served, 0 when the account already owns it (DESIGN decision 5). */
import type { Credits } from "../credits.js"
import { captionCreditsPerTranscript } from "./rates.js"

export const captionCredits = (owned: boolean): Credits => (owned ? 0 : captionCreditsPerTranscript)
