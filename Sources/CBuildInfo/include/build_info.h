#ifndef CALLALERT_BUILD_INFO_H
#define CALLALERT_BUILD_INFO_H

/// The git revision the binary was built from (`git describe --always --dirty`), or "unknown" when it was
/// built without `make` (a plain `swift build`) or outside a git checkout.
const char *callalert_git_revision(void);

#endif
