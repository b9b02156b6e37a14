/** One occurrence of a noun phrase in a text. */
export type Candidate = {
  /** As written in the text (an exact substring of it). */
  surface: string;
  /** What occurrences of the same term share: lower-cased, English plurals made singular. */
  key: string;
  /** Where it occurs, in words from the start of the text. */
  at: number;
  /** How many words it has. */
  words: number;
  /** How rare its words are in general text (higher: more specific). */
  rarity: number;
};
