export { BasePagination, warnOnce } from './base.js';
export type { Pagination, PaginationClass, Source, OpenAPIParameter, CountStrategy, CountStrategyView } from './base.js';
export { PageNumberPagination, type PageNumberState } from './page-number.js';
export { LimitOffsetPagination, type LimitOffsetState } from './limit-offset.js';
export { CursorPagination, type Cursor, type OrderingView } from './cursor.js';
export { pageSource, reverseTerms, compareValues, keysetPredicate, type PageSource, type OrderTerm } from './source.js';
export { pythonInt, positiveInt, PythonValueError } from './python-int.js';
export { NestedLinksPagination } from './examples/nested-links.js';
export { LinkHeaderPagination } from './examples/link-header.js';
