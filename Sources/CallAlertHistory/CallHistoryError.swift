internal import GRDB

/// A history that cannot be opened, written or read: a folder that cannot be made, a disk that refuses
/// (read-only, full, failing), a file that is not a database, or a row this version does not understand
/// (written by a newer one).
public struct CallHistoryError: Error, Equatable, Sendable, CustomStringConvertible {
  /// What kind of trouble: whether waiting may cure it, and what the daemon does about it.
  public enum Kind: String, Equatable, Sendable {
    /// The folder cannot be made, or something that is not a file is at the path.
    case folder
    /// The file or its folder cannot be written (read-only, no permission).
    case readOnly = "read-only"
    /// The disk is full.
    case full
    /// The file is not a database, or is damaged: it is moved aside and a new one started.
    case corrupt
    /// The disk failed otherwise (cannot open, I/O error, locked for too long).
    case unavailable
    /// The database refused this one request (a row this version does not know, a broken statement):
    /// retrying it cannot help.
    case rejected

    /// Whether the same request may succeed later, once the disk is cured.
    public var isRetryable: Bool { self != .rejected }
  }

  /// The database's path, or `:memory:`.
  public var path: String
  /// What is wrong.
  public var message: String
  /// What kind of trouble it is.
  public var kind: Kind

  /// Creates an error.
  public init(path: String, message: String, kind: Kind = .unavailable) {
    self.path = path
    self.message = message
    self.kind = kind
  }

  /// `path: message`.
  public var description: String { "\(path): \(message)" }

  /// The error for anything the database threw, sorted by its SQLite result code.
  init(_ error: any Error, path: String) {
    if let error = error as? CallHistoryError {
      self = error
      return
    }
    guard let error = error as? DatabaseError else {
      self.init(path: path, message: "\(error)", kind: .unavailable)
      return
    }
    let kind: Kind
    switch error.resultCode {
    case .SQLITE_FULL: kind = .full
    case .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_AUTH: kind = .readOnly
    case .SQLITE_CORRUPT, .SQLITE_NOTADB: kind = .corrupt
    case .SQLITE_CANTOPEN, .SQLITE_IOERR, .SQLITE_BUSY, .SQLITE_LOCKED, .SQLITE_PROTOCOL, .SQLITE_NOMEM,
      .SQLITE_NOLFS, .SQLITE_INTERRUPT, .SQLITE_ABORT:
      kind = .unavailable
    default: kind = .rejected
    }
    self.init(path: path, message: error.message ?? "\(error)", kind: kind)
  }
}
