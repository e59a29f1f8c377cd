// The checkout's own folders, which nothing a capture writes may go into: the
// code the build and the capture run, the repository, the installed packages.
export const CODE_FOLDERS = ['src', 'scripts', 'tests', '.git', '.github', 'public', 'node_modules'] as const;
