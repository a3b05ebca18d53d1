/**
 * The tools, one module per family and one tool per use case an assistant needs, each calling the
 * operation of the REST endpoint it mirrors (same authentication, rate limit and credits):
 *
 * | tool | mirrors |
 * |---|---|
 * | get_video_info | GET /videos/info |
 * | transcribe_video | POST /transcribe (and POST /transcribe/estimate for the ASR question) |
 * | get_job | GET /jobs/{job_id} |
 * | get_transcript | GET /transcripts/{video_id}, in chunks |
 * | search_transcripts, list_transcripts | GET /transcripts (with snippets) |
 * | transcript_languages | GET /transcripts/{video_id}/languages |
 * | translate_transcript | POST /transcripts/{video_id}/translate |
 * | estimate_cost | POST /transcribe/estimate |
 * | get_credits | GET /credits |
 * | run_batch | POST /batch |
 * | get_batch | GET /batch/{batch_id}, a page of items |
 * | resolve_playlist | POST /playlists/resolve |
 * | resolve_channel | POST /channels/resolve |
 * | get_themes | GET /transcripts/{video_id}/themes, or POST with unlock |
 *
 * Never a silent charge for speech recognition: a request that would start ASR without
 * `confirm_asr: true` answers `requires_asr_confirmation` with the quote and a question for the
 * user, whether the account default asked for the confirmation (DESIGN decision 1) or the model
 * sent an ASR mode on its own.
 */

import type { McpTool } from "../tool.js"
import { getBatch, runBatch } from "./batches.js"
import { resolveChannel, resolvePlaylist } from "./collections.js"
import { getCredits } from "./credits.js"
import { getThemes } from "./themes.js"
import { estimateCost, getJob, transcribeVideo } from "./transcribe.js"
import { getTranscript, listTranscripts, searchTranscripts, transcriptLanguages } from "./transcripts.js"
import { translateTranscript } from "./translation.js"
import { getVideoInfo } from "./videos.js"

export { batchPage } from "./batches.js"

/** Every tool, in the order they are listed. */
export const tools: ReadonlyArray<McpTool> = [
  getVideoInfo,
  transcribeVideo,
  getJob,
  getTranscript,
  searchTranscripts,
  listTranscripts,
  transcriptLanguages,
  translateTranscript,
  estimateCost,
  getCredits,
  runBatch,
  getBatch,
  resolvePlaylist,
  resolveChannel,
  getThemes
]
