import CallAlertEngine
import CallAlertHistory
import Foundation
import Testing

/// The history's files on disk: private to their owner, a damaged file kept aside, what cannot be a
/// database said as such. (The tests run as root, whom no permission bit stops: a folder that cannot be
/// written is made with a file where the folder should be.)
@Suite struct CallHistoryFilesTests {
  static func mode(_ path: String) -> mode_t? {
    var status = stat()
    return stat(path, &status) == 0 ? status.st_mode & 0o7777 : nil
  }

  @Test func theFolderIsPrivateAndEveryFileOfTheDatabaseToo() throws {
    let (path, cleanup) = temporaryDatabasePath()
    defer { cleanup() }
    // Under the usual umask 022, which gives 0644 to files SQLite makes: the test process's, set once at its
    // start (CTestProcess), not by this test for the others.
    let history = try CallHistory(path: path)
    try history.record(ringing(IncomingCall(id: "c1", callerNumber: "+4930123", callerName: "Zoë")), at: at(0))
    let folder = (path as NSString).deletingLastPathComponent
    #expect(Self.mode(folder) == 0o700)
    #expect(Self.mode((folder as NSString).deletingLastPathComponent) == 0o700, "every folder it made")
    #expect(Self.mode(path) == 0o600)
    // Write-ahead logging: the companions exist while the database is open, with the database's bits.
    #expect(Self.mode(path + "-wal") == 0o600)
    #expect(Self.mode(path + "-shm") == 0o600)
  }

  @Test func aLooserHistoryIsTightenedAndSaysSo() throws {
    let (path, cleanup) = temporaryDatabasePath()
    defer { cleanup() }
    do { _ = try CallHistory(path: path) }
    #expect(chmod(path, 0o644) == 0)
    let opening = try CallHistory.open(path: path, at: at(0))
    #expect(Self.mode(path) == 0o600)
    #expect(opening.notes.contains { $0.contains("tightened \(path) from 0644 to 0600") })
    #expect(opening.movedAside == nil)
  }

  @Test func aFileOfGarbageIsMovedAsideKeptAndANewHistoryStarted() throws {
    let (path, cleanup) = temporaryDatabasePath()
    defer { cleanup() }
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    let garbage = Data((0..<8_192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    try garbage.write(to: URL(fileURLWithPath: path))
    // Plain opening refuses it, as damaged.
    do {
      _ = try CallHistory(path: path).calls()
      Issue.record("garbage opened as a history")
    } catch {
      #expect(error.kind == .corrupt)
    }

    let aside: String
    do {
      let opening = try CallHistory.open(path: path, at: at(0))
      aside = try #require(opening.movedAside)
      #expect(aside == path + ".corrupt-20261121T220000Z")
      #expect(try Data(contentsOf: URL(fileURLWithPath: aside)) == garbage, "kept as it was")
      #expect(opening.notes.contains { $0.contains(aside) })
      try opening.history.record(ringing(IncomingCall(id: "c1")), at: at(1))
      #expect(try opening.history.calls().map(\.id) == ["c1"])
      #expect(Self.mode(path) == 0o600)
    }

    // The same mistake twice on one second keeps both files.
    try garbage.write(to: URL(fileURLWithPath: path))
    #expect(try CallHistory.open(path: path, at: at(0)).movedAside == aside + "-2")
  }

  @Test func aDamagedPageIsFoundByTheQuickCheck() throws {
    let (path, cleanup) = temporaryDatabasePath()
    defer { cleanup() }
    do {
      let history = try CallHistory(path: path)
      for index in 0..<300 { try history.record(ringing(IncomingCall(id: "call-\(index)")), at: at(Double(index))) }
    }
    // A valid header, and garbage over the pages after it.
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
    try handle.seek(toOffset: 4_096)
    try handle.write(contentsOf: Data(repeating: 0xA5, count: 16_384))
    try handle.close()
    let opening = try CallHistory.open(path: path, at: at(0))
    #expect(opening.movedAside != nil)
    #expect(try opening.history.calls().isEmpty)
  }

  @Test(arguments: ["a folder at the path", "a file where a folder should be"])
  func whatCannotBeADatabaseIsAFolderError(_ case: String) throws {
    let (path, cleanup) = temporaryDatabasePath()
    defer { cleanup() }
    let folder = (path as NSString).deletingLastPathComponent
    let target: String
    if `case` == "a folder at the path" {
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
      target = path
    } else {
      try FileManager.default.createDirectory(
        atPath: (folder as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      try Data("not a folder".utf8).write(to: URL(fileURLWithPath: folder))
      target = folder + "/history.sqlite"
    }
    do {
      _ = try CallHistory.open(path: target, at: at(0))
      Issue.record("opened \(target)")
    } catch {
      #expect(error.kind == .folder)
      #expect(error.kind.isRetryable, "it may be cured while the daemon runs")
    }
  }

  @Test func aPrunedCallLeavesNoTraceInTheFile() throws {
    let (path, cleanup) = temporaryDatabasePath()
    defer { cleanup() }
    let secret = "Zebediah Quillfeather"
    do {
      let history = try CallHistory(path: path)
      try history.record(ringing(IncomingCall(id: "c1", callerNumber: "+4930555", callerName: secret)), at: at(0))
      try history.record(.stopped(callID: "c1", reason: .hangup), at: at(5))
    }
    do { #expect(try CallHistory(path: path).prune(receivedBefore: at(10)) == 1) }
    // Both closed: the log is folded into the file. The deleted row's bytes are zeros, not a free page.
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(bytes.range(of: Data(secret.utf8)) == nil)
    #expect(bytes.range(of: Data("+4930555".utf8)) == nil)
  }
}

/// `callalert history --database FILE` reads; it never creates, changes or chmods.
@Suite struct CallHistoryReadingTests {
  @Test func aFileThatIsNoDatabaseIsRefusedAndLeftAsItWas() throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("callalert-\(UUID()).txt").path
    try "notes\n".write(toFile: path, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
    #expect(throws: CallHistoryError.self) { _ = try CallHistory.reading(path: path) }
    #expect(CallHistoryFilesTests.mode(path) == 0o644)
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "notes\n")
    #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
  }

  @Test func aHistoryIsReadWithoutItsModeChanging() throws {
    let (path, cleanup) = temporaryDatabasePath()
    defer { cleanup() }
    let history = try CallHistory(path: path)
    try history.record(ringing(IncomingCall(id: "c1", callerNumber: "+4930123")), at: at(0))
    try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
    let reader = try CallHistory.reading(path: path)
    #expect(try reader.calls(missedOnly: false, limit: 10).map(\.id) == ["c1"])
    #expect(CallHistoryFilesTests.mode(path) == 0o640)
  }

  @Test func aMissingFileIsNotCreated() {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("callalert-\(UUID()).sqlite").path
    #expect(throws: CallHistoryError.self) { _ = try CallHistory.reading(path: path) }
    #expect(!FileManager.default.fileExists(atPath: path))
  }
}
