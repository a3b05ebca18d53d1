/**
 * The web library's pages (Preact): one bundle, drawn from the URL. Every piece of text that comes
 * from the API (captions, titles, names) is rendered as text by Preact, never as markup; the page's
 * Content-Security-Policy allows no inline script (`../pages.ts`).
 */
import "./app.css"
import { render } from "preact"
import { useEffect, useRef } from "preact/hooks"
import { AccountPage } from "./pages/account.js"
import { LibraryPage } from "./pages/library.js"
import { ReaderPage } from "./pages/reader.js"
import { TranscribePage } from "./pages/transcribe.js"
import { Link, useLocation } from "./router.js"
import { session } from "./session.js"

const pages = [
  { path: "/", name: "Library" },
  { path: "/transcribe", name: "Transcribe" },
  { path: "/account", name: "Account" }
] as const

const Page = (props: { readonly url: URL }) => {
  const path = props.url.pathname
  if (path.startsWith("/read/")) {
    return <ReaderPage videoId={decodeURIComponent(path.slice("/read/".length))} url={props.url} />
  }
  if (path === "/transcribe") return <TranscribePage url={props.url} />
  if (path === "/account") return <AccountPage />
  return <LibraryPage url={props.url} />
}

const App = () => {
  const url = useLocation()
  const main = useRef<HTMLElement>(null)
  const first = useRef(true)
  // After a navigation, focus moves to the new page (its main region), as a page load would.
  useEffect(() => {
    if (first.current) {
      first.current = false
      return
    }
    main.current?.focus()
  }, [url.pathname])
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <nav aria-label="Main">
          <Link href="/" class="brand">
            Verbatim
          </Link>
          <ul>
            {pages.map((page) => (
              <li key={page.path}>
                <Link
                  href={page.path}
                  aria-current={
                    (
                      page.path === "/"
                        ? url.pathname === "/" || url.pathname.startsWith("/read/")
                        : url.pathname === page.path
                    )
                      ? "page"
                      : undefined
                  }
                >
                  {page.name}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <form method="post" action="/sign-out" class="sign-out">
          <span class="who" title={`Account ${session.account.id}`}>
            {session.account.name}
          </span>
          <input type="hidden" name="csrf_token" value={session.csrfToken} />
          <button type="submit" id="sign-out">
            Sign out
          </button>
        </form>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        <Page url={url} />
      </main>
    </>
  )
}

const root = document.getElementById("app")
if (root !== null) {
  root.textContent = ""
  render(<App />, root)
}
