// Builds actionlint from the project's tools/ Go module (the version its
// go.mod pins) into the machine cache (~/.cache/shice/tools/bin/actionlint), as scripts/build-kube.ts
// builds the lab's binaries: skipped when the binary on disk was built from
// the same go.mod and go.sum by the same Go (a stamp beside it), else go mod
// download and go build with progress (src/capture/machine/go-build.ts). Used by
// `npm run lint:workflows` and scripts/build-actionlint.ts.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  ACTIONLINT_BINARY,
  ACTIONLINT_MODULE,
  ACTIONLINT_PACKAGE,
  BUILT_TOOLS_BIN_DIR,
  requiredVersion,
  TOOLS_MODULE_DIR,
  TOOLS_MODULE_FILES,
} from './actionlint.ts';
import { compiledText, elapsedSince, goBuild, goVersion, moduleStamp, stampIsCurrent, writeStamp } from '../../src/capture/machine/go-build.ts';

const stampFile = join(BUILT_TOOLS_BIN_DIR, '.actionlint.stamp');

export interface Built {
  binary: string;
  /** The pinned version, as tools/go.mod requires it. */
  version: string;
}

/** The binary, built when missing or stale; or the one line saying why it could not be. `quiet` says nothing when it is current. */
export async function buildActionlint(tag: string, quiet = false): Promise<Built | { problem: string }> {
  const files: Record<string, string> = {};
  for (const name of TOOLS_MODULE_FILES) {
    const path = join(TOOLS_MODULE_DIR, name);
    if (!existsSync(path)) return { problem: `${relative(process.cwd(), path) || path} is missing: the tools module pins actionlint there` };
    files[name] = readFileSync(path, 'utf8');
  }
  const version = requiredVersion(files['go.mod']!, ACTIONLINT_MODULE);
  if (version === null)
    return { problem: `tools/go.mod requires no ${ACTIONLINT_MODULE}: expected a pinned version (go get -tool ${ACTIONLINT_PACKAGE}@vX.Y.Z in tools/)` };
  const found = goVersion();
  if ('problem' in found) return { problem: `needs Go (go1.26 or newer) on PATH to build actionlint ${version} from tools/go.mod: ${found.problem}` };
  const go = found.version;
  const stamp = moduleStamp(files, go, { package: ACTIONLINT_PACKAGE });
  if (existsSync(ACTIONLINT_BINARY) && stampIsCurrent(stampFile, stamp)) {
    if (!quiet) process.stdout.write(`${tag}: ${ACTIONLINT_BINARY} is up to date (actionlint ${version}, ${go})\n`);
    return { binary: ACTIONLINT_BINARY, version };
  }

  const started = performance.now();
  process.stdout.write(`${tag}: building actionlint ${version} from tools/go.mod with ${go} into ${ACTIONLINT_BINARY}\n`);
  const built = await goBuild({
    tag,
    cwd: TOOLS_MODULE_DIR,
    env: { ...process.env, CGO_ENABLED: '0' },
    flags: ['-trimpath', '-ldflags', '-s -w'],
    packages: [ACTIONLINT_PACKAGE],
    output: ACTIONLINT_BINARY,
    started,
  });
  if ('problem' in built) return built;
  writeStamp(stampFile, stamp);
  process.stdout.write(`${tag}: actionlint ${version} built in ${elapsedSince(started)} (${compiledText(built.compiled)})\n`);
  return { binary: ACTIONLINT_BINARY, version };
}
