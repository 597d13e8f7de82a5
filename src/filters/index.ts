export { BaseFilterBackend, isOrderingBackend, isQuery, type FilterBackend, type FilterBackendClass, type FilterControl, type OrderingBackend } from './base.js';
export { SearchFilter, type SearchView } from './search.js';
export { searchSmartSplit } from './search-terms.js';
export { OrderingFilter, type OrderingView } from './ordering.js';
export { FilterSetBackend, filterSet, type FilterLookup, type FilterSet, type FilterSetView, type FilterSpec, type FilterType, type ModelFilterInfo } from './filter-set.js';
export type { FiltersetFields } from './model-filters.js';
export type { ModelPath, RelationHop } from './relations.js';
