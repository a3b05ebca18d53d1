/**
 * Transcribe: a video (URL or id), a playlist or a channel, or a file dropped here. Nothing is
 * charged before the price was shown: a video's estimate (free) comes first; speech recognition is
 * asked for in words with its price, and starts only once confirmed; a playlist's or channel's videos
 * are listed with what they may cost before the batch starts. Jobs and batches are followed with a
 * progress bar until they end; an upload shows its bytes' progress, then its job's.
 */
import { useEffect, useRef, useState } from "preact/hooks"
import { ApiFailure, api, problemOf } from "../api.js"
import { credits, duration } from "../format.js"
import { Link } from "../router.js"
import { session } from "../session.js"
import { Status } from "../widgets.js"

type Kind = "video" | "playlist" | "channel"

/** What a pasted reference names: a playlist (`list=`, a PL… id), a channel (@handle, /channel/…), or a video. */
export const kindOf = (input: string): Kind => {
  const text = input.trim()
  if (text.startsWith("@")) return "channel"
  try {
    const url = new URL(text)
    if (url.searchParams.has("list") && !url.searchParams.has("v")) return "playlist"
    if (/^\/(@|channel\/|c\/|user\/)/.test(url.pathname)) return "channel"
    return "video"
  } catch {
    return /^(PL|OL|UU|FL|RD)[A-Za-z0-9_-]{10,}$/.test(text) ? "playlist" : "video"
  }
}

interface Estimate {
  readonly video_id: string
  readonly duration_seconds: number | null
  readonly estimated_credits: number
  readonly exceeds_max_duration: boolean
  readonly max_duration_minutes: number
}

interface TranscribeAnswer {
  readonly status: "completed" | "processing" | "failed" | "requires_asr_confirmation"
  readonly job_id?: string | null
  readonly credits_used?: number
  readonly estimated_credits?: number
  readonly duration_minutes?: number | null
  readonly error?: string
  readonly data?: {
    readonly video_id: string
    readonly transcript?: { readonly language: string; readonly source: string }
  }
}

interface VideoRef {
  readonly video_id: string
  readonly title: string | null
}

interface Collection {
  readonly title: string
  readonly items: ReadonlyArray<VideoRef>
}

interface Batch {
  readonly batch_id: string
  readonly status: string
  readonly summary: {
    readonly total: number
    readonly succeeded: number
    readonly failed: number
    readonly processing: number
  }
  readonly credits_used: number
  readonly results: ReadonlyArray<{
    readonly video_id: string
    readonly status: string
    readonly error: string | null
    readonly data?: { readonly transcript?: { readonly language: string; readonly source: string } } | null
  }>
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The reader of a finished result. */
const readerOf = (videoId: string, transcript?: { readonly language: string; readonly source: string }) =>
  `/read/${encodeURIComponent(videoId)}${transcript === undefined ? "" : `?language=${encodeURIComponent(transcript.language)}&source=${encodeURIComponent(transcript.source)}`}`

/** A progress bar with its words (a bar without a value is "still going"). */
const Progress = (props: {
  readonly label: string
  readonly value?: number
  readonly max?: number
  readonly id: string
}) => (
  <div class="progress" id={props.id}>
    <span id={`${props.id}-label`}>{props.label}</span>
    {props.value === undefined ? (
      <progress aria-labelledby={`${props.id}-label`} />
    ) : (
      <progress aria-labelledby={`${props.id}-label`} value={props.value} max={props.max ?? 100} />
    )}
  </div>
)

/** The price of speech recognition for a file of `seconds` (the domain's base rate, from the server). */
const asrPrice = (seconds: number): number =>
  Math.max(1, Math.ceil(seconds / session.pricing.secondsPerAsrCredit))

/** A signed upload URL of this service, sent to the origin this page was loaded from. */
const sameOriginUpload = (signedUrl: string): string => {
  const url = new URL(signedUrl)
  return url.origin === session.serviceOrigin
    ? `${window.location.origin}${url.pathname}${url.search}`
    : signedUrl
}

/** The length of a media file in seconds, read by the browser. */
const mediaSeconds = (file: File): Promise<number | undefined> =>
  new Promise((resolve) => {
    const media = document.createElement(file.type.startsWith("video/") ? "video" : "audio")
    const url = URL.createObjectURL(file)
    const done = (value: number | undefined) => {
      URL.revokeObjectURL(url)
      resolve(value)
    }
    media.preload = "metadata"
    media.onloadedmetadata = () => done(Number.isFinite(media.duration) ? media.duration : undefined)
    media.onerror = () => done(undefined)
    media.src = url
  })

export const TranscribePage = (_props: { readonly url: URL }) => {
  const alive = useRef(true)
  useEffect(
    () => () => {
      alive.current = false
    },
    []
  )
  const [reference, setReference] = useState("")
  const [estimate, setEstimate] = useState<Estimate | undefined>(undefined)
  const [collection, setCollection] = useState<Collection | undefined>(undefined)
  const [asrQuestion, setAsrQuestion] = useState<
    { readonly price: number; readonly minutes: number | null } | undefined
  >(undefined)
  const [job, setJob] = useState<{ readonly id: string; readonly label: string } | undefined>(undefined)
  const [batch, setBatch] = useState<Batch | undefined>(undefined)
  const [done, setDone] = useState<{ readonly href: string; readonly message: string } | undefined>(undefined)
  const [problem, setProblem] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const [file, setFile] = useState<File | undefined>(undefined)
  const [fileSeconds, setFileSeconds] = useState<number | undefined>(undefined)
  const [webhook, setWebhook] = useState(() => localStorage.getItem("verbatim.webhook_url") ?? "")
  const [uploaded, setUploaded] = useState<number | undefined>(undefined)
  const [dragging, setDragging] = useState(false)

  const reset = () => {
    setEstimate(undefined)
    setCollection(undefined)
    setAsrQuestion(undefined)
    setJob(undefined)
    setBatch(undefined)
    setDone(undefined)
    setProblem(undefined)
    setUploaded(undefined)
  }

  const run = async (work: () => Promise<void>) => {
    setBusy(true)
    setProblem(undefined)
    try {
      await work()
    } catch (error) {
      if (alive.current) setProblem(problemOf(error))
    } finally {
      if (alive.current) setBusy(false)
    }
  }

  /** Polls a job until it ends. */
  const follow = async (jobId: string, label: string) => {
    setJob({ id: jobId, label })
    for (;;) {
      const answer = await api<TranscribeAnswer>("GET", `/jobs/${jobId}`, {
        query: { include_segments: false }
      })
      if (!alive.current) return
      if (answer.status === 200) {
        setJob(undefined)
        if (answer.body.status === "failed") {
          setProblem(answer.body.error ?? "The job failed; nothing was charged.")
          return
        }
        const videoId = answer.body.data?.video_id ?? ""
        setDone({
          href: readerOf(videoId, answer.body.data?.transcript),
          message: `Done: ${credits(answer.body.credits_used ?? 0)} used.`
        })
        return
      }
      await wait(1000)
    }
  }

  /** Polls a batch until it ends. */
  const followBatch = async (batchId: string) => {
    for (;;) {
      const answer = await api<Batch>("GET", `/batch/${batchId}`)
      if (!alive.current) return
      setBatch(answer.body)
      if (answer.status === 200) return
      await wait(1000)
    }
  }

  const check = (event: Event) => {
    event.preventDefault()
    reset()
    const text = reference.trim()
    if (text === "") return
    const kind = kindOf(text)
    void run(async () => {
      if (kind === "video") {
        const answer = await api<Estimate>("POST", "/transcribe/estimate", { body: { video: text } })
        setEstimate(answer.body)
        return
      }
      if (kind === "playlist") {
        const url = text.startsWith("http") ? { playlist_url: text } : { playlist_id: text }
        const answer = await api<{
          title: string | null
          playlist_id: string
          items: ReadonlyArray<VideoRef>
        }>("POST", "/playlists/resolve", { body: { ...url, limit: Math.min(100, session.limits.batchSize) } })
        setCollection({ title: answer.body.title ?? answer.body.playlist_id, items: answer.body.items })
        return
      }
      const channel = text.startsWith("@") ? { handle: text } : { channel_url: text }
      const answer = await api<{ channel_title: string; items: ReadonlyArray<VideoRef> }>(
        "POST",
        "/channels/resolve",
        {
          body: {
            ...channel,
            limit: Math.max(1, Math.min(50, session.limits.channelResolveCap, session.limits.batchSize))
          }
        }
      )
      setCollection({ title: answer.body.channel_title, items: answer.body.items })
    })
  }

  const transcribeVideo = (confirmed: boolean) =>
    run(async () => {
      const video = estimate?.video_id ?? reference.trim()
      setAsrQuestion(undefined)
      let answer: Awaited<ReturnType<typeof api<TranscribeAnswer>>>
      try {
        answer = await api<TranscribeAnswer>("POST", "/transcribe", {
          body: confirmed ? { video, mode: "auto" } : { video }
        })
      } catch (error) {
        // The account's default is captions only: a video without captions can still be transcribed
        // from its audio, at the price the estimate showed, once the person says so.
        if (error instanceof ApiFailure && error.code === "no_captions" && estimate !== undefined) {
          setAsrQuestion({
            price: estimate.estimated_credits,
            minutes: estimate.duration_seconds === null ? null : estimate.duration_seconds / 60
          })
          return
        }
        throw error
      }
      const body = answer.body
      if (body.status === "requires_asr_confirmation") {
        setAsrQuestion({
          price: body.estimated_credits ?? estimate?.estimated_credits ?? 0,
          minutes: body.duration_minutes ?? null
        })
      } else if (body.status === "processing" && body.job_id) {
        await follow(body.job_id, "Speech recognition is running")
      } else if (body.status === "failed") {
        setProblem(body.error ?? "The transcription failed; nothing was charged.")
      } else {
        setDone({
          href: readerOf(body.data?.video_id ?? video, body.data?.transcript),
          message: `Done: ${credits(body.credits_used ?? 0)} used.`
        })
      }
    })

  const startBatch = () =>
    run(async () => {
      if (collection === undefined) return
      const ids = collection.items.map((item) => item.video_id).slice(0, session.limits.batchSize)
      const answer = await api<Batch>("POST", "/batch", { body: { video_ids: ids, mode: "captions_only" } })
      setBatch(answer.body)
      if (answer.status === 202) await followBatch(answer.body.batch_id)
    })

  const chooseFile = (chosen: File | undefined) => {
    reset()
    setFile(chosen)
    setFileSeconds(undefined)
    if (chosen !== undefined)
      void mediaSeconds(chosen).then((seconds) => alive.current && setFileSeconds(seconds))
  }

  const upload = () =>
    run(async () => {
      if (file === undefined || fileSeconds === undefined) return
      localStorage.setItem("verbatim.webhook_url", webhook)
      const created = await api<{ upload_id: string; signed_url: string }>("POST", "/uploads", {
        body: {
          filename: file.name,
          mime_type: file.type || "application/octet-stream",
          size_bytes: file.size,
          duration_sec: Math.max(1, Math.ceil(fileSeconds))
        }
      })
      setUploaded(0)
      await new Promise<void>((resolve, reject) => {
        const request = new XMLHttpRequest()
        request.open("PUT", sameOriginUpload(created.body.signed_url))
        request.setRequestHeader("content-type", file.type)
        request.upload.onprogress = (event) => {
          if (event.lengthComputable && alive.current)
            setUploaded(Math.round((event.loaded / event.total) * 100))
        }
        request.onload = () =>
          request.status < 300
            ? resolve()
            : reject(new Error(`The upload was refused (${request.status}): ${request.responseText}`))
        request.onerror = () => reject(new Error("The upload did not reach the server"))
        request.send(file)
      })
      setUploaded(100)
      await api("POST", `/uploads/${created.body.upload_id}/complete`)
      const answer = await api<TranscribeAnswer>("POST", "/transcribe", {
        body: { upload_id: created.body.upload_id, mode: "speech_to_text_only", webhook_url: webhook.trim() }
      })
      if (answer.body.job_id) await follow(answer.body.job_id, "Speech recognition of your file is running")
    })

  const batchDone = batch === undefined ? 0 : batch.summary.succeeded + batch.summary.failed
  return (
    <section aria-labelledby="transcribe-title">
      <h1 id="transcribe-title">Transcribe</h1>
      <form class="card" onSubmit={check}>
        <label for="reference">A video, playlist or channel (URL, id or @handle)</label>
        <div class="inline-form">
          <input
            id="reference"
            class="grow"
            value={reference}
            onInput={(event) => setReference(event.currentTarget.value)}
            placeholder="https://www.youtube.com/watch?v=…"
            required
            autocomplete="off"
          />
          <button type="submit" class="primary" id="check" disabled={busy}>
            See the price
          </button>
        </div>
        <p class="muted">Nothing is charged until you confirm.</p>
      </form>
      <Status message={problem} error />

      {estimate === undefined ? null : (
        <div class="card" id="estimate">
          <h2>Price</h2>
          <p>
            From its captions: <strong>{credits(session.pricing.captionCreditsPerTranscript)}</strong>{" "}
            (nothing if it is already in your library).
          </p>
          <p>
            Without captions, from its audio (speech recognition, only if you confirm):{" "}
            <strong>{credits(estimate.estimated_credits)}</strong>
            {estimate.duration_seconds === null ? "" : ` for ${duration(estimate.duration_seconds)}`}.
            {estimate.exceeds_max_duration
              ? ` Longer than ${estimate.max_duration_minutes} minutes: speech recognition is not offered.`
              : ""}
          </p>
          <button
            type="button"
            class="primary"
            id="transcribe"
            disabled={busy}
            onClick={() => void transcribeVideo(false)}
          >
            Transcribe
          </button>
        </div>
      )}

      {asrQuestion === undefined ? null : (
        <div
          class="card confirm-asr"
          role="alertdialog"
          aria-labelledby="asr-title"
          aria-describedby="asr-text"
          id="asr-question"
        >
          <h2 id="asr-title">Transcribe the audio?</h2>
          <p id="asr-text">
            This video has no captions. Speech recognition of its audio
            {asrQuestion.minutes === null ? "" : ` (${duration(asrQuestion.minutes * 60)})`} costs{" "}
            <strong>{credits(asrQuestion.price)}</strong>, charged when it is done (nothing if it fails).
          </p>
          <button
            type="button"
            class="primary"
            id="confirm-asr"
            disabled={busy}
            onClick={() => void transcribeVideo(true)}
          >
            Yes, transcribe the audio for {credits(asrQuestion.price)}
          </button>{" "}
          <button type="button" onClick={() => setAsrQuestion(undefined)}>
            No
          </button>
        </div>
      )}

      {collection === undefined ? null : (
        <div class="card" id="collection">
          <h2>{collection.title}</h2>
          <p>
            {collection.items.length} video{collection.items.length === 1 ? "" : "s"}
            {collection.items.length > session.limits.batchSize
              ? ` (your plan takes ${session.limits.batchSize} at once)`
              : ""}
            : up to{" "}
            <strong>
              {credits(
                Math.min(collection.items.length, session.limits.batchSize) *
                  session.pricing.captionCreditsPerTranscript
              )}
            </strong>
            , one per video transcribed from its captions; those already in your library cost nothing, and
            videos without captions are skipped.
          </p>
          <ol class="compact">
            {collection.items.slice(0, 10).map((item) => (
              <li key={item.video_id}>{item.title ?? item.video_id}</li>
            ))}
            {collection.items.length > 10 ? (
              <li class="muted">…and {collection.items.length - 10} more</li>
            ) : null}
          </ol>
          {batch === undefined ? (
            <button
              type="button"
              class="primary"
              id="start-batch"
              disabled={busy || collection.items.length === 0}
              onClick={() => void startBatch()}
            >
              Transcribe {Math.min(collection.items.length, session.limits.batchSize)} videos
            </button>
          ) : null}
        </div>
      )}

      {batch === undefined ? null : (
        <div class="card" id="batch">
          <Progress
            id="batch-progress"
            label={`${batchDone} of ${batch.summary.total} videos done (${batch.summary.failed} failed) · ${batch.status}`}
            value={batchDone}
            max={batch.summary.total}
          />
          {batch.status === "processing" ? null : (
            <>
              <p class="status" role="status" id="batch-done">
                The batch is {batch.status}: {credits(batch.credits_used)} used.
              </p>
              <ul class="compact">
                {batch.results.map((result) => (
                  <li key={result.video_id}>
                    {result.status === "completed" ? (
                      <Link href={readerOf(result.video_id, result.data?.transcript ?? undefined)}>
                        {result.video_id}
                      </Link>
                    ) : (
                      <span>
                        {result.video_id}: {result.error ?? result.status}
                      </span>
                    )}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}

      {/* biome-ignore lint/a11y/noStaticElementInteractions: a drop target; the file input inside it is the keyboard's way */}
      <div
        class={`card drop${dragging ? " dragging" : ""}`}
        id="drop-zone"
        onDragOver={(event) => {
          event.preventDefault()
          setDragging(true)
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(event) => {
          event.preventDefault()
          setDragging(false)
          chooseFile(event.dataTransfer?.files[0])
        }}
      >
        <h2>Upload a file</h2>
        <p>Drop an audio or video file here, or</p>
        <input
          id="file"
          type="file"
          accept="audio/*,video/*"
          class="visually-hidden"
          onChange={(event) => chooseFile(event.currentTarget.files?.[0])}
        />
        <label for="file" class="button">
          Choose a file
        </label>
        {file === undefined ? null : (
          <div id="upload-form">
            <p>
              <strong>{file.name}</strong> ({Math.ceil(file.size / 1024)} KiB
              {fileSeconds === undefined ? "" : `, ${duration(fileSeconds)}`})
            </p>
            {fileSeconds === undefined ? (
              <div class="field">
                <label for="file-seconds">Its length in seconds (the browser could not read it)</label>
                <input
                  id="file-seconds"
                  type="number"
                  min={1}
                  onInput={(event) => setFileSeconds(Number(event.currentTarget.value) || undefined)}
                />
              </div>
            ) : (
              <p>
                Speech recognition costs <strong id="upload-price">{credits(asrPrice(fileSeconds))}</strong>,
                charged when it is done.
              </p>
            )}
            <div class="field">
              <label for="webhook">
                Webhook URL (the API delivers the finished transcript there; required for uploads)
              </label>
              <input
                id="webhook"
                type="url"
                value={webhook}
                onInput={(event) => setWebhook(event.currentTarget.value)}
                placeholder="https://example.com/hook"
                required
              />
            </div>
            <button
              type="button"
              class="primary"
              id="upload"
              disabled={busy || fileSeconds === undefined || webhook.trim() === ""}
              onClick={() => void upload()}
            >
              Upload and transcribe{fileSeconds === undefined ? "" : ` for ${credits(asrPrice(fileSeconds))}`}
            </button>
          </div>
        )}
        {uploaded === undefined ? null : (
          <Progress id="upload-progress" label={`Uploading: ${uploaded}%`} value={uploaded} max={100} />
        )}
      </div>

      {job === undefined ? null : <Progress id="job-progress" label={`${job.label}…`} />}
      {done === undefined ? null : (
        <p class="status" role="status" id="done">
          {done.message}{" "}
          <Link href={done.href} id="open-result">
            Open the transcript
          </Link>
        </p>
      )}
    </section>
  )
}
