import CallAlertProtocol
import CallAlertVirtualBoard
import Testing

/// PROTOCOL.md §5.3 rule 5: only a frame's own deadline spends its tries. A line that damages one byte in 2 000
/// (0.05 %) loses a delimiter now and then, which merges two frames into one dropped block; go-back-N then resends
/// every frame behind them, and a sequence_gap NAK can trigger a fast retransmit within milliseconds. When every
/// transmission counted, frames deep in a window of 8 ran out of their 5 tries within a few hundred milliseconds
/// and failed the channel although the line delivered almost everything.
@Suite struct FastRetransmitBudgetTests {
  /// 0.05 % of bytes damaged (one bit flipped), both ways, 1-2 ms latency, 115 200 baud.
  static let line = LineImpairments(byteDamage: 0.0005, latencyMs: 1...2, bytesPerMs: 11, maxChunk: 64)

  /// The runs measured (each is one exact, repeatable run).
  static let seeds: [UInt64] = (1...40).map { 0xFA57_0000 + $0 }

  /// 150 PINGs of 16 to 200 bytes, pipelined (0-5 ms apart) through a window of 8, with the spec's 5 tries.
  static func run(seed: UInt64) -> (failed: Bool, retransmissions: UInt32, damaged: Int) {
    var rng = SplitMix64(seed: seed)
    let commands = (0..<150).map { index -> (gapMs: UInt64, command: Command) in
      let count = rng.draw(16...200)
      return (rng.draw(UInt64(0)...5), .ping((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }))
    }
    var simulation = LinkSimulation(
      hostWindow: 8, boardWindow: 8, boardNonce: 0x5A17_C0DE, toBoard: SimulatedLine(line, seed: seed &+ 1),
      toHost: SimulatedLine(line, seed: seed &+ 2), timing: .standard)
    simulation.scriptHost(commands: commands)
    simulation.scriptBoard(events: [])
    simulation.run(limitMs: 120_000)
    return (
      !simulation.hostRecord.failures.isEmpty, simulation.host.sender.retransmissions,
      simulation.toBoard.statistics.bytesDamaged + simulation.toHost.statistics.bytesDamaged
    )
  }

  /// Measured over 40 runs of 150 PINGs (6 000 PINGs): when every transmission counted as a try, 7 runs failed
  /// the channel; with PROTOCOL.md §5.3 rule 5, 1 does (seed 0xFA57001B: a 200-byte PING whose five own-deadline
  /// round trips were all damaged, four answers and one command, which is what 5 tries are meant to give up on).
  @Test func fewChannelsFailAtFiveHundredthsOfAPercentDamagedBytes() {
    var failedRuns: [UInt64] = []
    var retransmissions: UInt32 = 0
    var damaged = 0
    for seed in Self.seeds {
      let result = Self.run(seed: seed)
      if result.failed { failedRuns.append(seed) }
      retransmissions += result.retransmissions
      damaged += result.damaged
    }
    print(
      "fast-retransmit budget: \(failedRuns.count) of \(Self.seeds.count) runs of 150 PINGs failed the channel;"
        + " \(retransmissions) retransmissions; \(damaged) bytes damaged")
    #expect(damaged > 0, "the line damaged bytes")
    #expect(failedRuns.count <= 1, "runs that failed the channel: \(failedRuns.map { String($0, radix: 16) })")
  }
}
