import CBuildInfo

/// What `callalert --version` prints: the release and the git revision it was built from.
enum BuildVersion {
  /// The release number (CHANGELOG.md); `make deb` takes the package's version from here.
  static let number = "0.1.0"

  /// `git describe --always --dirty` at build time (see Sources/CBuildInfo), or "unknown".
  static var revision: String { String(cString: callalert_git_revision()) }

  /// `0.1.0 (git 3676910abcde)`.
  static var line: String { "\(number) (git \(revision))" }
}
