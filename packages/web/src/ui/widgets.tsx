/** Small pieces the pages share: a status line, a confirmation dialog, pagination. */
import type { ComponentChildren } from "preact"
import { useEffect, useRef } from "preact/hooks"

/** A polite live region: what just happened, or went wrong (`role="alert"`). */
export const Status = (props: { readonly message?: string | undefined; readonly error?: boolean }) =>
  props.message === undefined ? null : (
    <p class={props.error === true ? "error" : "status"} role={props.error === true ? "alert" : "status"}>
      {props.message}
    </p>
  )

/** A modal confirmation (the browser's `<dialog>`: focus stays inside, Escape cancels). */
export const Confirm = (props: {
  readonly open: boolean
  readonly title: string
  readonly confirmLabel: string
  readonly onConfirm: () => void
  readonly onCancel: () => void
  readonly children: ComponentChildren
}) => {
  const dialog = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const element = dialog.current
    if (element === null) return
    if (props.open && !element.open) element.showModal()
    if (!props.open && element.open) element.close()
  }, [props.open])
  return (
    <dialog ref={dialog} aria-labelledby="confirm-title" onCancel={props.onCancel} class="confirm">
      <h2 id="confirm-title">{props.title}</h2>
      {props.children}
      <div class="actions">
        <button type="button" class="danger" id="confirm" onClick={props.onConfirm}>
          {props.confirmLabel}
        </button>
        <button type="button" id="cancel" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </dialog>
  )
}

/** Previous and next pages, and where we are. */
export const Pager = (props: {
  readonly page: number
  readonly totalPages: number
  readonly label: string
  readonly onPage: (page: number) => void
}) =>
  props.totalPages <= 1 ? null : (
    <nav class="pager" aria-label={props.label}>
      <button type="button" disabled={props.page <= 1} onClick={() => props.onPage(props.page - 1)}>
        Previous
      </button>
      <span aria-live="polite">
        Page {props.page} of {props.totalPages}
      </span>
      <button
        type="button"
        disabled={props.page >= props.totalPages}
        onClick={() => props.onPage(props.page + 1)}
      >
        Next
      </button>
    </nav>
  )
