/**
 * The library: the account's transcripts, newest first, with the API's search (and, for each
 * result, the passages that matched with their time), filters (language, source, dates) and pages;
 * transcripts selected are deleted together after a confirmation. The filters live in the URL.
 * One request shows the page (`GET /transcripts`, with segments only while searching, to point at
 * the passages).
 */
import { useEffect, useState } from "preact/hooks"
import { ApiFailure, api, problemOf } from "../api.js"
import { clock, date, duration, sourceNames } from "../format.js"
import { Link, navigate } from "../router.js"
import { matchingSegments } from "../snippets.js"
import { Confirm, Pager, Status } from "../widgets.js"

interface Segment {
  readonly text: string
  readonly start: number
  readonly end: number
}

interface Item {
  readonly id: string
  readonly video_id: string
  readonly video_title: string | null
  readonly language: string
  readonly source_kind: string
  readonly created_at: string
  readonly word_count: number
  readonly duration_seconds: number
  readonly segments?: ReadonlyArray<Segment>
}

interface List {
  readonly history: ReadonlyArray<Item>
  readonly count: number
  readonly pagination: { readonly page: number; readonly total: number; readonly totalPages: number }
}

/** The reader of one transcript (its language and source), optionally at a moment. */
export const readerHref = (
  item: Pick<Item, "video_id" | "language" | "source_kind">,
  at?: number
): string => {
  const query = new URLSearchParams({ language: item.language, source: item.source_kind })
  if (at !== undefined) query.set("t", String(at))
  return `/read/${encodeURIComponent(item.video_id)}?${query}`
}

const filterNames = ["q", "language", "source", "from", "to"] as const
type Filters = Record<(typeof filterNames)[number], string>

const filtersOf = (url: URL): Filters =>
  Object.fromEntries(filterNames.map((name) => [name, url.searchParams.get(name) ?? ""])) as Filters

/** A date input's day as the API's bound: the start of that day, or its end for `to`. */
const dayBound = (day: string, end: boolean): string | undefined =>
  day === "" ? undefined : `${day}T${end ? "23:59:59.999" : "00:00:00.000"}Z`

export const LibraryPage = (props: { readonly url: URL }) => {
  const filters = filtersOf(props.url)
  const page = Math.max(1, Number(props.url.searchParams.get("page") ?? "1") || 1)
  const [list, setList] = useState<List | undefined>(undefined)
  const [problem, setProblem] = useState<string | undefined>(undefined)
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set())
  const [confirming, setConfirming] = useState(false)
  const [notice, setNotice] = useState<string | undefined>(undefined)
  const [reload, setReload] = useState(0)
  const key = props.url.search

  useEffect(() => {
    let live = true
    setProblem(undefined)
    const searching = filters.q.trim() !== ""
    api<List>("GET", "/transcripts", {
      query: {
        page,
        limit: searching ? 10 : 20,
        search: filters.q.trim() || undefined,
        language: filters.language || undefined,
        source: filters.source || undefined,
        date_from: dayBound(filters.from, false),
        date_to: dayBound(filters.to, true),
        include_segments: searching ? true : undefined
      }
    })
      .then((answer) => {
        if (live) setList(answer.body)
      })
      .catch((error: unknown) => {
        if (live) setProblem(problemOf(error))
      })
    return () => {
      live = false
    }
  }, [key, reload])

  const go = (next: Partial<Filters> & { page?: number }) => {
    const query = new URLSearchParams()
    const merged = { ...filters, ...next }
    for (const name of filterNames) if (merged[name] !== "") query.set(name, merged[name])
    if ((next.page ?? 1) > 1) query.set("page", String(next.page))
    navigate(`/${query.size > 0 ? `?${query}` : ""}`)
  }

  const onSearch = (event: Event) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget as HTMLFormElement)
    const value = (name: string) => String(form.get(name) ?? "").trim()
    go({
      q: value("q"),
      language: value("language"),
      source: value("source"),
      from: value("from"),
      to: value("to")
    })
  }

  const toggle = (id: string) => {
    const next = new Set(selected)
    if (next.has(id)) next.delete(id)
    else next.add(id)
    setSelected(next)
  }

  const remove = async () => {
    setConfirming(false)
    try {
      const answer = await api<{ deleted: number }>("POST", "/transcripts/bulk-delete", {
        body: { ids: [...selected] }
      })
      setNotice(`Deleted ${answer.body.deleted} transcript${answer.body.deleted === 1 ? "" : "s"}.`)
      setSelected(new Set())
      setReload(reload + 1)
    } catch (error) {
      setNotice(undefined)
      setProblem(error instanceof ApiFailure ? error.message : problemOf(error))
    }
  }

  const searching = filters.q.trim() !== ""
  return (
    <section aria-labelledby="library-title">
      <div class="title-row">
        <h1 id="library-title">Your library</h1>
        <Link href="/transcribe" class="button primary">
          Transcribe
        </Link>
      </div>
      <form class="filters card" aria-label="Search your library" onSubmit={onSearch}>
        <div class="field grow">
          <label for="q">Search</label>
          <input id="q" name="q" type="search" value={filters.q} placeholder="Words, a title or a video id" />
        </div>
        <div class="field">
          <label for="language">Language</label>
          <input
            id="language"
            name="language"
            value={filters.language}
            placeholder="any (en, de…)"
            size={8}
          />
        </div>
        <div class="field">
          <label for="source">Source</label>
          <select id="source" name="source" value={filters.source}>
            <option value="">any</option>
            <option value="manual">human captions</option>
            <option value="auto">automatic captions</option>
            <option value="asr">speech recognition</option>
          </select>
        </div>
        <div class="field">
          <label for="from">From</label>
          <input id="from" name="from" type="date" value={filters.from} />
        </div>
        <div class="field">
          <label for="to">To</label>
          <input id="to" name="to" type="date" value={filters.to} />
        </div>
        <div class="field actions">
          <button type="submit" class="primary" id="search">
            Search
          </button>
        </div>
      </form>
      <Status message={notice} />
      <Status message={problem} error />
      {list === undefined ? (
        problem === undefined ? (
          <p class="loading">Loading…</p>
        ) : null
      ) : (
        <>
          <div class="title-row">
            <p class="muted" aria-live="polite" id="result-count">
              {list.pagination.total === 0
                ? searching
                  ? "Nothing matches."
                  : "No transcripts yet."
                : `${list.pagination.total} transcript${list.pagination.total === 1 ? "" : "s"}`}
            </p>
            {selected.size > 0 ? (
              <button type="button" class="danger" id="delete-selected" onClick={() => setConfirming(true)}>
                Delete selected ({selected.size})
              </button>
            ) : null}
          </div>
          <ul class="items" aria-label="Transcripts">
            {list.history.map((item) => {
              const found = searching ? matchingSegments(item.segments ?? [], filters.q) : []
              const title = item.video_title ?? item.video_id
              return (
                <li key={item.id} class="item card">
                  <input
                    type="checkbox"
                    id={`select-${item.id}`}
                    checked={selected.has(item.id)}
                    onChange={() => toggle(item.id)}
                    aria-label={`Select ${title} (${item.language})`}
                  />
                  <div class="item-body">
                    <h2>
                      <Link href={readerHref(item)}>{title}</Link>
                    </h2>
                    <p class="muted">
                      {item.language} · {sourceNames[item.source_kind] ?? item.source_kind} ·{" "}
                      {duration(item.duration_seconds)} · {item.word_count} words · {date(item.created_at)}
                    </p>
                    {found.length > 0 ? (
                      <ul class="snippets" aria-label="Where it matched">
                        {found.map((segment) => (
                          <li key={segment.start}>
                            <Link href={readerHref(item, segment.start)} class="time">
                              {clock(segment.start)}
                            </Link>{" "}
                            <span>{segment.text}</span>
                          </li>
                        ))}
                      </ul>
                    ) : null}
                  </div>
                </li>
              )
            })}
          </ul>
          <Pager
            page={list.pagination.page}
            totalPages={list.pagination.totalPages}
            label="Library pages"
            onPage={(next) => go({ page: next })}
          />
        </>
      )}
      <Confirm
        open={confirming}
        title={`Delete ${selected.size} transcript${selected.size === 1 ? "" : "s"}?`}
        confirmLabel="Delete"
        onConfirm={() => void remove()}
        onCancel={() => setConfirming(false)}
      >
        <p>
          They are removed from your library for good. Transcribing a video again costs its credits again.
        </p>
      </Confirm>
    </section>
  )
}
