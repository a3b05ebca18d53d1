/**
 * The reader: one transcript with its timestamps (each a link that opens the video at that moment),
 * a search within it, its languages (owned ones, and translations offered with their price), its
 * themes and keywords (locked with their unlock price, or shown), copy, SRT/WebVTT/TXT downloads and
 * delete. The transcript, its languages and its themes are asked for at once (one round trip).
 * Long transcripts are drawn a page of `segmentsPerPage` segments at a time, so an hours-long one
 * costs no more to show than a short one; the search within finds matches across all of them.
 */
import { useEffect, useMemo, useState } from "preact/hooks"
import { ApiFailure, api, apiBase, problemOf, queryString } from "../api.js"
import { clock, credits, isUpload, sourceNames, videoAt } from "../format.js"
import { Link, navigate } from "../router.js"
import { session } from "../session.js"
import { Confirm, Pager, Status } from "../widgets.js"

export const segmentsPerPage = 200

interface Segment {
  readonly text: string
  readonly start: number
  readonly end: number
}

interface Transcript {
  readonly id: string
  readonly video_id: string
  readonly language: string
  readonly text: string
  readonly segments: ReadonlyArray<Segment>
  readonly source_kind: string
  readonly video_title: string | null
}

interface Languages {
  readonly languages: ReadonlyArray<string>
  readonly platform_translation_languages: ReadonlyArray<string>
}

interface Themes {
  readonly status: "locked" | "processing" | "completed"
  readonly credits_required?: number
  readonly tldr?: string
  readonly themes?: ReadonlyArray<{
    readonly id: string
    readonly name: string
    readonly summary: string
    readonly keywords: ReadonlyArray<{
      readonly id: string
      readonly term: string
      readonly mention_count: number
    }>
  }>
  readonly moments?: ReadonlyArray<{
    readonly id: string
    readonly label: string
    readonly quote: string
    readonly start: number
  }>
}

/** The credits a translation of `text` costs (the domain's rule, its rate from the server). */
const translationPrice = (text: string): number => {
  const characters = [...text].length
  return characters === 0 ? 0 : Math.ceil(characters / session.pricing.charactersPerTranslationCredit)
}

/** `text` with every occurrence of `search` marked (as text: never markup). */
const Marked = (props: { readonly text: string; readonly search: string }) => {
  const needle = props.search.trim().toLowerCase()
  if (needle === "") return <>{props.text}</>
  const parts: Array<preact.JSX.Element | string> = []
  const lower = props.text.toLowerCase()
  let from = 0
  for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + needle.length)) {
    parts.push(props.text.slice(from, at))
    parts.push(<mark key={at}>{props.text.slice(at, at + needle.length)}</mark>)
    from = at + needle.length
  }
  parts.push(props.text.slice(from))
  return <>{parts}</>
}

const copyText = async (text: string): Promise<void> => {
  if (navigator.clipboard !== undefined) return navigator.clipboard.writeText(text)
  const area = document.createElement("textarea")
  area.value = text
  document.body.append(area)
  area.select()
  document.execCommand("copy")
  area.remove()
}

export const ReaderPage = (props: { readonly videoId: string; readonly url: URL }) => {
  const language = props.url.searchParams.get("language") ?? undefined
  const source = props.url.searchParams.get("source") ?? undefined
  const at = Number(props.url.searchParams.get("t") ?? "NaN")
  const selector = { language, source }
  const path = `/transcripts/${encodeURIComponent(props.videoId)}`
  const [transcript, setTranscript] = useState<Transcript | undefined>(undefined)
  const [languages, setLanguages] = useState<Languages | undefined>(undefined)
  const [themes, setThemes] = useState<Themes | undefined>(undefined)
  const [problem, setProblem] = useState<string | undefined>(undefined)
  const [notice, setNotice] = useState<string | undefined>(undefined)
  const [page, setPage] = useState(1)
  const [search, setSearch] = useState("")
  const [current, setCurrent] = useState(-1)
  const [target, setTarget] = useState("")
  const [busy, setBusy] = useState<string | undefined>(undefined)
  const [confirming, setConfirming] = useState(false)

  useEffect(() => {
    let live = true
    setTranscript(undefined)
    setProblem(undefined)
    // The three requests go together: the page waits on one round trip.
    api<Transcript>("GET", path, { query: selector })
      .then((answer) => {
        if (!live) return
        setTranscript(answer.body)
        const index = Number.isFinite(at) ? answer.body.segments.findIndex((s) => s.end > at) : -1
        setPage(index >= 0 ? Math.floor(index / segmentsPerPage) + 1 : 1)
        setCurrent(index)
      })
      .catch((error: unknown) => live && setProblem(problemOf(error)))
    api<Languages>("GET", `${path}/languages`)
      .then((answer) => live && setLanguages(answer.body))
      .catch(() => undefined)
    api<Themes>("GET", `${path}/themes`, { query: selector })
      .then((answer) => live && setThemes(answer.body))
      .catch(() => undefined)
    return () => {
      live = false
    }
  }, [props.url.search, props.videoId])

  // The segment asked for (a snippet's time, a match) is scrolled to once its page is drawn.
  useEffect(() => {
    if (current < 0) return
    document.getElementById(`seg-${current}`)?.scrollIntoView({ block: "center" })
  }, [current, page, transcript])

  const matches = useMemo(() => {
    const needle = search.trim().toLowerCase()
    if (transcript === undefined || needle === "") return []
    const found: Array<number> = []
    transcript.segments.forEach((segment, index) => {
      if (segment.text.toLowerCase().includes(needle)) found.push(index)
    })
    return found
  }, [search, transcript])

  const goToMatch = (step: number) => {
    if (matches.length === 0) return
    const position = matches.indexOf(current)
    const next = matches[(position + step + matches.length) % matches.length] ?? matches[0] ?? 0
    setCurrent(next)
    setPage(Math.floor(next / segmentsPerPage) + 1)
  }

  if (problem !== undefined && transcript === undefined) {
    return (
      <section>
        <h1>Transcript</h1>
        <Status message={problem} error />
        <p>
          <Link href="/">Back to your library</Link>
        </p>
      </section>
    )
  }
  if (transcript === undefined) return <p class="loading">Loading the transcript…</p>

  const title = transcript.video_title ?? transcript.video_id
  const upload = isUpload(transcript.video_id)
  const exportQuery = (format: string) =>
    `${apiBase}${path}${queryString({ language: transcript.language, source: transcript.source_kind, format })}`
  const pages = Math.max(1, Math.ceil(transcript.segments.length / segmentsPerPage))
  const first = (page - 1) * segmentsPerPage
  const shown = transcript.segments.slice(first, first + segmentsPerPage)
  const owned = new Set(languages?.languages ?? [])
  const offered = (languages?.platform_translation_languages ?? []).filter((code) => !owned.has(code))
  const price = translationPrice(transcript.text)

  const translate = async () => {
    if (target === "") return
    setBusy("translate")
    setNotice(undefined)
    try {
      await api("POST", `${path}/translate`, {
        body: { target_language: target, source_language: transcript.language, allow_ai_fallback: true }
      })
      navigate(`/read/${encodeURIComponent(transcript.video_id)}?language=${encodeURIComponent(target)}`)
    } catch (error) {
      setProblem(problemOf(error))
    } finally {
      setBusy(undefined)
    }
  }

  const unlockThemes = async () => {
    setBusy("themes")
    try {
      const answer = await api<Themes>("POST", `${path}/themes`, {
        query: { language: transcript.language, source: transcript.source_kind }
      })
      setThemes(answer.body)
    } catch (error) {
      setProblem(problemOf(error))
    } finally {
      setBusy(undefined)
    }
  }

  const remove = async () => {
    setConfirming(false)
    try {
      await api("DELETE", path, { query: { language: transcript.language, source: transcript.source_kind } })
      navigate("/")
    } catch (error) {
      setProblem(error instanceof ApiFailure ? error.message : problemOf(error))
    }
  }

  return (
    <article aria-labelledby="reader-title">
      <p>
        <Link href="/">← Your library</Link>
      </p>
      <h1 id="reader-title">{title}</h1>
      <p class="muted" id="reader-meta">
        {transcript.language} · {sourceNames[transcript.source_kind] ?? transcript.source_kind} ·{" "}
        {transcript.segments.length} segments
        {upload ? " · an uploaded file" : ""}
      </p>
      <div class="toolbar">
        <button
          type="button"
          id="copy"
          onClick={() =>
            void copyText(transcript.text).then(
              () => setNotice("The transcript's text is copied."),
              () => setNotice("The browser did not allow copying.")
            )
          }
        >
          Copy text
        </button>
        <a
          class="button"
          id="download-srt"
          href={exportQuery("srt")}
          download={`${transcript.video_id}.${transcript.language}.srt`}
        >
          SRT
        </a>
        <a
          class="button"
          id="download-vtt"
          href={exportQuery("vtt")}
          download={`${transcript.video_id}.${transcript.language}.vtt`}
        >
          WebVTT
        </a>
        <a
          class="button"
          id="download-txt"
          href={exportQuery("txt")}
          download={`${transcript.video_id}.${transcript.language}.txt`}
        >
          TXT
        </a>
        {upload ? null : (
          <a class="button" href={videoAt(transcript.video_id, 0)} target="_blank" rel="noopener noreferrer">
            Watch
          </a>
        )}
        <button type="button" class="danger" id="delete" onClick={() => setConfirming(true)}>
          Delete
        </button>
      </div>
      <Status message={notice} />
      <Status message={problem} error />

      <section class="card" aria-labelledby="languages-title">
        <h2 id="languages-title">Languages</h2>
        <ul class="chips" aria-label="Languages you own">
          {[...owned].map((code) => (
            <li key={code}>
              <Link
                href={`/read/${encodeURIComponent(transcript.video_id)}?language=${encodeURIComponent(code)}`}
                aria-current={code === transcript.language ? "page" : undefined}
              >
                {code}
              </Link>
            </li>
          ))}
        </ul>
        {offered.length > 0 ? (
          <div class="inline-form">
            <label for="translate-to">Translate into</label>
            <select
              id="translate-to"
              value={target}
              onChange={(event) => setTarget(event.currentTarget.value)}
            >
              <option value="">choose a language</option>
              {offered.map((code) => (
                <option key={code} value={code}>
                  {code} — {credits(price)}
                </option>
              ))}
            </select>
            <button
              type="button"
              id="translate"
              disabled={target === "" || busy !== undefined}
              onClick={() => void translate()}
            >
              {target === "" ? "Translate" : `Translate into ${target} for ${credits(price)}`}
            </button>
          </div>
        ) : (
          <p class="muted">No translation is offered for this video.</p>
        )}
      </section>

      <section class="card" aria-labelledby="themes-title">
        <h2 id="themes-title">Themes and keywords</h2>
        {themes === undefined ? (
          <p class="muted">Reading…</p>
        ) : themes.status === "locked" ? (
          <button
            type="button"
            id="unlock-themes"
            disabled={busy !== undefined}
            onClick={() => void unlockThemes()}
          >
            {busy === "themes"
              ? "Finding themes…"
              : `Unlock themes and keywords for ${credits(themes.credits_required ?? 1)}`}
          </button>
        ) : themes.status === "processing" ? (
          <p class="status" role="status">
            Finding themes… (paid; reload in a moment)
          </p>
        ) : (
          <div id="themes">
            {themes.tldr === undefined || themes.tldr === "" ? null : <p>{themes.tldr}</p>}
            {(themes.themes ?? []).length === 0 ? <p class="muted">Too short for themes.</p> : null}
            <ul class="themes">
              {(themes.themes ?? []).map((theme) => (
                <li key={theme.id}>
                  <strong>{theme.name}</strong> <span class="muted">{theme.summary}</span>
                  <ul class="chips" aria-label={`Keywords of ${theme.name}`}>
                    {theme.keywords.map((keyword) => (
                      <li key={keyword.id}>
                        <button type="button" class="chip" onClick={() => setSearch(keyword.term)}>
                          {keyword.term}
                        </button>
                      </li>
                    ))}
                  </ul>
                </li>
              ))}
            </ul>
          </div>
        )}
      </section>

      <section aria-labelledby="text-title">
        <h2 id="text-title">Transcript</h2>
        <form
          class="inline-form"
          aria-label="Find in this transcript"
          onSubmit={(event) => {
            event.preventDefault()
            goToMatch(1)
          }}
        >
          <label for="find">Find in this transcript</label>
          <input
            id="find"
            type="search"
            value={search}
            onInput={(event) => setSearch(event.currentTarget.value)}
          />
          <button type="button" onClick={() => goToMatch(-1)} disabled={matches.length === 0}>
            Previous
          </button>
          <button type="submit" id="find-next" disabled={matches.length === 0}>
            Next
          </button>
          <span class="muted" aria-live="polite" id="match-count">
            {search.trim() === "" ? "" : `${matches.length} match${matches.length === 1 ? "" : "es"}`}
          </span>
        </form>
        <Pager page={page} totalPages={pages} label="Transcript pages" onPage={setPage} />
        <ol class="segments" start={first + 1} id="segments">
          {shown.map((segment, offset) => {
            const index = first + offset
            return (
              <li key={index} id={`seg-${index}`} class={index === current ? "current" : undefined}>
                {upload ? (
                  <span class="time">{clock(segment.start)}</span>
                ) : (
                  <a
                    class="time"
                    href={videoAt(transcript.video_id, segment.start)}
                    target="_blank"
                    rel="noopener noreferrer"
                    aria-label={`Open the video at ${clock(segment.start)}`}
                  >
                    {clock(segment.start)}
                  </a>
                )}{" "}
                <span class="text">
                  <Marked text={segment.text} search={search} />
                </span>
              </li>
            )
          })}
        </ol>
        <Pager page={page} totalPages={pages} label="Transcript pages, again" onPage={setPage} />
      </section>
      <Confirm
        open={confirming}
        title="Delete this transcript?"
        confirmLabel="Delete"
        onConfirm={() => void remove()}
        onCancel={() => setConfirming(false)}
      >
        <p>
          The {transcript.language} transcript (
          {sourceNames[transcript.source_kind] ?? transcript.source_kind}) of “{title}” is removed for good.
        </p>
      </Confirm>
    </article>
  )
}
