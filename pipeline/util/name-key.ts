// One comparison key for block names and search terms: case, spaces, `-`, `_` and `.` never tell two names apart
// (`Conv2d-Norm_Activation` and `conv2d norm activation` are both `conv2dnormactivation`). Shared by the synonym
// table (index time) and the search page's re-ranking (query time), so both sides agree on what "the same name" is.
export const nameKey = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/g, '');
