// Content entry ids are `<slug>/<lang>` (the glob loader over content/articles/*/{zh,en}.mdx).
export function articleSlug(entryId: string): string {
  const slug = entryId.split('/')[0];
  if (!slug) throw new Error(`content entry "${entryId}": expected an id of the form <slug>/<lang>`);
  return slug;
}
