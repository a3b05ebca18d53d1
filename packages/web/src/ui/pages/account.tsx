/**
 * The account: credits available and held, the plan and its limits, and the recent jobs. Its two
 * requests go together (one round trip); the plan's limits came with the page.
 */
import { useEffect, useState } from "preact/hooks"
import { api, problemOf } from "../api.js"
import { credits, date, sourceNames } from "../format.js"
import { Link } from "../router.js"
import { session } from "../session.js"
import { Status } from "../widgets.js"

interface Credits {
  readonly credits: number
  readonly held_credits?: number
  readonly plan: string
}

interface Jobs {
  readonly jobs: ReadonlyArray<{
    readonly job_id: string
    readonly video_id: string
    readonly video_title: string | null
    readonly language: string | null
    readonly source: string | null
    readonly status: string
    readonly error: string | null
    readonly credits_used: number
    readonly created_at: string
  }>
}

export const AccountPage = () => {
  const [balance, setBalance] = useState<Credits | undefined>(undefined)
  const [jobs, setJobs] = useState<Jobs | undefined>(undefined)
  const [problem, setProblem] = useState<string | undefined>(undefined)
  useEffect(() => {
    let live = true
    const failed = (error: unknown) => live && setProblem(problemOf(error))
    api<Credits>("GET", "/credits")
      .then((answer) => live && setBalance(answer.body))
      .catch(failed)
    api<Jobs>("GET", "/jobs", { query: { limit: 10 } })
      .then((answer) => live && setJobs(answer.body))
      .catch(failed)
    return () => {
      live = false
    }
  }, [])
  const limits = session.limits
  return (
    <section aria-labelledby="account-title">
      <h1 id="account-title">Account</h1>
      <Status message={problem} error />
      <div class="grid">
        <div class="card">
          <h2>Credits</h2>
          {balance === undefined ? (
            <p class="loading">Loading…</p>
          ) : (
            <dl>
              <dt>Available</dt>
              <dd id="credits-available">{balance.credits}</dd>
              <dt>Held by work under way</dt>
              <dd id="credits-held">{balance.held_credits ?? 0}</dd>
            </dl>
          )}
        </div>
        <div class="card">
          <h2>Plan</h2>
          <dl>
            <dt>Account</dt>
            <dd>
              {session.account.name} <span class="muted">({session.account.id})</span>
            </dd>
            <dt>Plan</dt>
            <dd id="plan">{session.account.plan}</dd>
            <dt>Requests</dt>
            <dd>{limits.requestsPerSecond} a second</dd>
            <dt>Videos in one batch</dt>
            <dd>{limits.batchSize}</dd>
            <dt>Channel videos listed at once</dt>
            <dd>{limits.channelResolveCap === 0 ? "not on this plan" : limits.channelResolveCap}</dd>
            <dt>Channel jobs a month</dt>
            <dd>{limits.channelJobsPerMonth === null ? "unlimited" : limits.channelJobsPerMonth}</dd>
          </dl>
        </div>
      </div>
      <h2>Recent jobs</h2>
      {jobs === undefined ? (
        <p class="loading">Loading…</p>
      ) : jobs.jobs.length === 0 ? (
        <p class="muted">
          No jobs yet. <Link href="/transcribe">Transcribe a video</Link>.
        </p>
      ) : (
        <div class="table-scroll">
          <table id="jobs">
            <caption class="visually-hidden">The account's ten most recent jobs</caption>
            <thead>
              <tr>
                <th scope="col">Video</th>
                <th scope="col">Status</th>
                <th scope="col">Credits</th>
                <th scope="col">Started</th>
              </tr>
            </thead>
            <tbody>
              {jobs.jobs.map((job) => (
                <tr key={job.job_id}>
                  <td>
                    {job.status === "completed" ? (
                      <Link
                        href={`/read/${encodeURIComponent(job.video_id)}${job.language === null ? "" : `?language=${encodeURIComponent(job.language)}`}`}
                      >
                        {job.video_title ?? job.video_id}
                      </Link>
                    ) : (
                      (job.video_title ?? job.video_id)
                    )}
                    {job.source === null ? null : (
                      <span class="muted"> · {sourceNames[job.source] ?? job.source}</span>
                    )}
                  </td>
                  <td>
                    {job.status}
                    {job.error === null ? null : <span class="muted"> ({job.error})</span>}
                  </td>
                  <td>{credits(job.credits_used)}</td>
                  <td>{date(job.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}
