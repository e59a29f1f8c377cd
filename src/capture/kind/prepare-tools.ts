// What kind:prepare runs from the machine, and the Debian package that brings
// each: the Docker engine it starts where none answers (with jq for the runtime
// wrapper of a host without CAP_SYS_RESOURCE), and what builds the node image
// where no registry answers (debootstrap for the minimal Debian, gcc and libc's
// headers for the pause binary). Plain data: `npm test`'s prerequisites and the
// capture's preparation (src/capture/session/preparation.ts) read the same lists.

/** A program found on PATH or at an absolute path, and the Debian package that brings it. */
export interface PreparedProgram {
  program: string;
  debianPackage: string;
}

const program = (name: string, debianPackage: string): PreparedProgram => ({ program: name, debianPackage });

export const KIND_PREPARE_TOOLS = {
  /** The docker CLI, and shice's own engine where no Docker engine answers. */
  engine: [program('docker', 'docker.io'), program('dockerd', 'docker.io'), program('containerd', 'containerd'), program('runc', 'runc'), program('jq', 'jq')],
  /** The node and backend images, built where no registry answers. */
  images: [program('debootstrap', 'debootstrap'), program('gcc', 'gcc'), program('/usr/include/stdio.h', 'libc6-dev')],
} as const satisfies Record<string, readonly PreparedProgram[]>;
