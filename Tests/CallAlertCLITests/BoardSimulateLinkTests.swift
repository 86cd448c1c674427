import Foundation
import Testing

@testable import callalert

/// `board simulate`'s symbolic link (where `--port auto` looks): a second one took over the first one's link
/// and removed it on exit, so the first board could no longer be found.
@Suite struct BoardSimulateLinkTests {
  private func folder() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("callalert-link-\(UUID())").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  @Test func aLinkToABoardThatIsStillThereIsNotTakenOver() throws {
    let folder = try folder()
    let running = folder + "/pts-1"
    FileManager.default.createFile(atPath: running, contents: nil)
    try CallAlertCommand.Board.Simulate.makeLink(folder + "/vb", to: running)
    #expect(throws: CommandFailure.self) {
      try CallAlertCommand.Board.Simulate.makeLink(folder + "/vb", to: folder + "/pts-2")
    }
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder + "/vb") == running)
  }

  @Test func aLinkLeftByABoardThatIsGoneIsReplaced() throws {
    let folder = try folder()
    try FileManager.default.createSymbolicLink(atPath: folder + "/vb", withDestinationPath: folder + "/gone")
    let mine = folder + "/pts-3"
    FileManager.default.createFile(atPath: mine, contents: nil)
    try CallAlertCommand.Board.Simulate.makeLink(folder + "/vb", to: mine)
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder + "/vb") == mine)
  }

  @Test func aFileIsNeverReplaced() throws {
    let folder = try folder()
    FileManager.default.createFile(atPath: folder + "/vb", contents: Data("keep".utf8))
    #expect(throws: (any Error).self) { try CallAlertCommand.Board.Simulate.makeLink(folder + "/vb", to: "/dev/null") }
    #expect(FileManager.default.contents(atPath: folder + "/vb") == Data("keep".utf8))
  }
}
