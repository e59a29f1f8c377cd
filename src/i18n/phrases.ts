// A Chinese title may break between any two characters ("保 / 住"); set as phrases,
// it breaks only after its punctuation, unless a phrase is itself wider than the line.
// Pure: the header sets each phrase as one inline block.

/** Splits after full-width punctuation; a title without any stays whole. */
export function titlePhrases(title: string): string[] {
  return title.split(/(?<=[，：；、。！？])/u).filter(Boolean);
}
