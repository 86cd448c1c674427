import CallAlertDaemon
import CallAlertEngine
import CallAlertTestSupport
import Clocks
import Synchronization
import Testing

/// The time from a call's arrival to its first PLAY acknowledged by a board (`/metrics`'s
/// `callalert_call_to_play_seconds`): reported once per PLAY a call's own arrival caused, with the board's name.
@Suite("Call to PLAY", .timeLimit(.minutes(1)))
struct CallToPlayTests {
  @Test func aCallsPlayIsReportedWithItsBoardAndAReplayIsNot() async throws {
    let rig = try await ScriptedRig()
    let (clock, service) = (rig.clock, rig.service)
    let reports = Mutex<[(board: String, latency: Duration)]>([])
    service.onCallToPlay { board, latency in reports.withLock { $0.append((board, latency)) } }

    // Inputs that are not calls report nothing, even a PLAY: the board coming back while c1 rings plays
    // it again. The PLAYs run in order, so c2's report comes after any the replay could have made.
    await service.submit(.setSilent(false))
    await service.submit(.call(IncomingCall(id: "c1")))
    let first = await advance(clock, within: .seconds(2)) { reports.withLock { $0.count } >= 1 }
    #expect(first != nil, "the call's PLAY is reported once the board acknowledged it")
    let token = await service.snapshot().boards.first?.token
    await service.submit(.boardBack(board: "desk"))
    let replayed = await service.snapshot().boards.first?.token
    #expect(replayed != nil && replayed != token, "the board coming back plays the call again")
    await service.submit(.hangup(callID: "c1"))
    await service.submit(.call(IncomingCall(id: "c2")))
    let second = await advance(clock, within: .seconds(2)) { reports.withLock { $0.count } >= 2 }
    #expect(second != nil, "the second call's PLAY is reported")

    let seen = reports.withLock { $0 }
    #expect(seen.map(\.board) == ["desk", "desk"], "one report per call, none for the replay")
    #expect(seen.allSatisfy { $0.latency >= .zero })
    await rig.shutDown()
  }
}
