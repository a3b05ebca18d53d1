/**
 * Pagination of GET /jobs and GET /transcripts: the `page` and `limit` query parameters (page from 1,
 * default 1; limit 1 to 100, default 50) and the Pagination object of the answer.
 */
import { Schema } from "effect"
import { Page, PageLimit, page, pageLimit } from "../plan/limits.js"
import { allErrors, intQuery } from "./fields.js"

export { Pagination } from "../plan/pagination.js"

/** The `page` and `limit` fields of a list query, for list queries to spread into theirs. */
export const paginationQueryFields = {
  page: intQuery(Page, page.default),
  limit: intQuery(PageLimit, pageLimit.default)
}

export const PaginationQuery = Schema.Struct(paginationQueryFields).annotations({
  identifier: "PaginationQuery",
  description: "page (from 1, default 1) and limit (1 to 100, default 50)",
  ...allErrors
})
export type PaginationQuery = typeof PaginationQuery.Type
