/**
 * A small router over the History API: the page is the URL's path (`/`, `/read/<video_id>`,
 * `/transcribe`, `/account`), its state the query string, so every view can be linked, reloaded
 * and walked with the browser's back button.
 */
import type { ComponentChildren } from "preact"
import { useEffect, useState } from "preact/hooks"

const listeners = new Set<() => void>()

export const navigate = (href: string, replace = false) => {
  if (replace) history.replaceState(null, "", href)
  else history.pushState(null, "", href)
  for (const listener of listeners) listener()
  window.scrollTo(0, 0)
}

/** The current location, re-rendered on every navigation. */
export const useLocation = (): URL => {
  const [url, setUrl] = useState(() => new URL(window.location.href))
  useEffect(() => {
    const update = () => setUrl(new URL(window.location.href))
    listeners.add(update)
    window.addEventListener("popstate", update)
    return () => {
      listeners.delete(update)
      window.removeEventListener("popstate", update)
    }
  }, [])
  return url
}

/** A link inside the library: followed without reloading the page. */
export const Link = (props: {
  readonly href: string
  readonly children: ComponentChildren
  readonly class?: string | undefined
  readonly id?: string | undefined
  readonly "aria-current"?: "page" | undefined
  readonly "aria-label"?: string | undefined
}) => {
  const { href, children } = props
  return (
    <a
      href={href}
      class={props.class}
      id={props.id}
      aria-current={props["aria-current"]}
      aria-label={props["aria-label"]}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
        event.preventDefault()
        navigate(href)
      }}
    >
      {children}
    </a>
  )
}
