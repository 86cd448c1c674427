import CallAlertEngine
import CallAlertHistory
import CallAlertValues
import Foundation
import Testing

/// A history whose file is removed or replaced while it is open is put back at its path with everything it
/// held: the calls, the unacknowledged missed ones, and what was written after the file went.
@Suite struct CallHistoryRecreationTests {
  static func mode(_ path: String) -> mode_t? {
    var status = stat()
    return stat(path, &status) == 0 ? status.st_mode & 0o7777 : nil
  }

  /// A history at `path` with a call that was answered and a missed call nobody acknowledged.
  static func history(at path: String) throws -> CallHistory {
    let history = try CallHistory.open(path: path, at: at(0)).history
    try history.record(ringing(IncomingCall(id: "answered")), at: at(1))
    try history.record(.stopped(callID: "answered", reason: .answered), at: at(2))
    try history.record(.missed(IncomingCall(id: "missed", callerName: "Zoë"), reason: .cap), at: at(3))
    return history
  }

  /// What a new connection to the file at `path` reads: what survives the process.
  static func onDisk(_ path: String) throws -> (ids: [String], missed: [String]) {
    let reader = try CallHistory.reading(path: path)
    return (try reader.calls(limit: 100).map(\.id), try reader.unacknowledgedMissed().map(\.id))
  }

  @Test func aHistoryInPlaceOrInMemoryHasNoChange() throws {
    let (path, cleanup) = temporaryDatabasePath()
    defer { cleanup() }
    #expect(try Self.history(at: path).fileChange() == nil)
    #expect(try CallHistory.inMemory().fileChange() == nil)
  }

  /// `rm history.sqlite` (its `-wal` and `-shm` stay), or `rm history.sqlite*`: the same.
  @Test(arguments: [false, true])
  func aRemovedFileIsMadeAgainWithEverythingItHeld(companionsToo: Bool) throws {
    let (path, cleanup) = temporaryDatabasePath()
    defer { cleanup() }
    let history = try Self.history(at: path)
    #expect(unlink(path) == 0)
    if companionsToo { for suffix in CallHistoryFiles.companionSuffixes { unlink(path + suffix) } }
    #expect(history.fileChange() == .removed)
    // Written after the file went: into the removed file, which the open connection still holds.
    try history.record(ringing(IncomingCall(id: "after")), at: at(4))
    try history.record(.stopped(callID: "after", reason: .hangup), at: at(5))

    let recreation = try history.recreate(at: at(6))
    #expect(recreation.change == .removed && recreation.problem == nil && recreation.keptAs == nil)
    #expect(recreation.calls == 3)
    let new = try #require(recreation.history)
    #expect(new.fileChange() == nil)
    #expect(try new.calls().map(\.id) == ["after", "missed", "answered"])
    #expect(try new.calls().first?.outcome == .hungUp)
    #expect(try Self.onDisk(path).missed == ["missed"], "the unacknowledged missed call is on disk again")
    #expect(Self.mode(path) == 0o600)
    #expect(!FileManager.default.fileExists(atPath: path + ".recreating"))
    // The old history is closed: it takes nothing more, so nothing goes astray.
    #expect(throws: CallHistoryError.self) { try history.record(ringing(IncomingCall(id: "lost")), at: at(7)) }
    try new.record(ringing(IncomingCall(id: "next")), at: at(8))
    #expect(try Self.onDisk(path).ids == ["next", "after", "missed", "answered"])
  }

  @Test func aRemovedFolderIsMadeAgain() throws {
    let (path, cleanup) = temporaryDatabasePath()
    defer { cleanup() }
    let history = try Self.history(at: path)
    let folder = (path as NSString).deletingLastPathComponent
    try FileManager.default.removeItem(atPath: folder)
    #expect(history.fileChange() == .removed)
    let new = try #require(try history.recreate(at: at(6)).history)
    #expect(try new.calls().map(\.id) == ["missed", "answered"])
    #expect(Self.mode(folder) == 0o700)
  }

  /// Another file at the path (`mv other.sqlite history.sqlite`): kept aside, never deleted, and the
  /// history goes back in its place.
  @Test func aReplacedFileIsKeptAsideAndTheHistoryPutBack() throws {
    let (path, cleanup) = temporaryDatabasePath()
    defer { cleanup() }
    let history = try Self.history(at: path)
    let other = path + ".other"
    try Data("not the history".utf8).write(to: URL(fileURLWithPath: other))
    #expect(rename(other, path) == 0)
    #expect(history.fileChange() == .replaced)

    let recreation = try history.recreate(at: at(6))
    #expect(recreation.change == .replaced)
    let keptAs = try #require(recreation.keptAs)
    #expect(keptAs.hasPrefix(path + ".replaced-"))
    #expect(try String(contentsOfFile: keptAs, encoding: .utf8) == "not the history")
    #expect(try Self.onDisk(path).ids == ["missed", "answered"])
    #expect(try Self.onDisk(path).missed == ["missed"])
  }

  /// What cannot be made again (a file where the folder should be) leaves the history open and as it was.
  @Test func aHistoryThatCannotBeMadeAgainStaysOpen() throws {
    let (path, cleanup) = temporaryDatabasePath()
    defer { cleanup() }
    let history = try Self.history(at: path)
    let folder = (path as NSString).deletingLastPathComponent
    try FileManager.default.removeItem(atPath: folder)
    try Data("in the way".utf8).write(to: URL(fileURLWithPath: folder))
    #expect(throws: CallHistoryError.self) { try history.recreate(at: at(6)) }
    try history.record(ringing(IncomingCall(id: "still")), at: at(7))
    #expect(try history.calls().map(\.id) == ["still", "missed", "answered"])

    try FileManager.default.removeItem(atPath: folder)
    let new = try #require(try history.recreate(at: at(8)).history)
    #expect(try new.calls().map(\.id) == ["still", "missed", "answered"])
  }
}
