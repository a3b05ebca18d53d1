/**
 * The chunking of a transcript and its cursors, as core defines them for every entry point
 * (`TranscriptChunks`): re-exported under the names this package has always had.
 */
import { TranscriptChunks } from "@verbatim/core"

export type Chunk = TranscriptChunks.Chunk
export type CursorValue = TranscriptChunks.CursorValue
export type Piece = TranscriptChunks.Piece
export type Position = TranscriptChunks.Position
export type TimedText = TranscriptChunks.TimedText

export const {
  chunkAt,
  chunkBudget,
  Cursor,
  cutPoint,
  decodeCursor,
  encodeCursor,
  pieceOverhead,
  start,
  within
} = TranscriptChunks
