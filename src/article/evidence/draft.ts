// A draft build (SHICE_DRAFT=1, `npm run build:draft`) renders broken claims as a
// visible warning on their passage instead of failing the build.
export function isDraft(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.SHICE_DRAFT === '1' || env.SHICE_DRAFT === 'true';
}
