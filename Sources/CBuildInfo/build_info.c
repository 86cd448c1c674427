// The revision is baked in at build time: `make` (Tools/scripts/write-revision.sh) writes revision.h next to
// this file, untracked, rewriting it only when the revision changed, so only this file recompiles. A plain
// `swift build` of a fresh clone has no revision.h and reports "unknown".
#include "build_info.h"

#if __has_include("revision.h")
#include "revision.h"
#endif

#ifndef CALLALERT_GIT_REVISION
#define CALLALERT_GIT_REVISION "unknown"
#endif

const char *callalert_git_revision(void) { return CALLALERT_GIT_REVISION; }
