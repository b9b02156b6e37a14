/** One broken rule: where in the output (dot path, "" for the whole output), which rule, in words. A leaf: no imports. */
export type Violation = { path: string; rule: string; message: string };
